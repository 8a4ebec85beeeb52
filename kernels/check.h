// Every CUDA, cuBLAS, cuDNN, NCCL and CUPTI call goes through one of these macros: a failure
// throws GpuError naming the library, the call as written, file:line and the layer being run
// (ScopedLayer), so no error is ever silently turned into a zero time. Out-of-memory failures
// are flagged so the harness can skip that layer and go on.
// The macros expand where the library's header is included; this header includes none of them.
#pragma once

#include <stdexcept>
#include <string>

namespace ddpsim::kernels {

class GpuError : public std::runtime_error {
 public:
  GpuError(const std::string& message, bool out_of_memory)
      : std::runtime_error(message), out_of_memory_(out_of_memory) {}
  bool out_of_memory() const { return out_of_memory_; }

 private:
  bool out_of_memory_;
};

// The layer (and pass) errors are attributed to, per thread: "layer1.0.conv1 backward".
const std::string& current_layer();

class ScopedLayer {
 public:
  explicit ScopedLayer(std::string name);
  ~ScopedLayer();
  ScopedLayer(const ScopedLayer&) = delete;
  ScopedLayer& operator=(const ScopedLayer&) = delete;

 private:
  std::string previous_;
};

[[noreturn]] void raise_gpu_error(const char* library, const char* call, const char* file, int line,
                                  long long code, const char* text, bool out_of_memory);

}  // namespace ddpsim::kernels

#define DDPSIM_CUDA_CHECK(call)                                                             \
  do {                                                                                      \
    const cudaError_t ddpsim_status_ = (call);                                              \
    if (ddpsim_status_ != cudaSuccess)                                                      \
      ::ddpsim::kernels::raise_gpu_error("CUDA", #call, __FILE__, __LINE__, ddpsim_status_, \
                                         cudaGetErrorString(ddpsim_status_),                \
                                         ddpsim_status_ == cudaErrorMemoryAllocation);      \
  } while (0)

// After a kernel launch: launch-configuration errors surface here, not at the next call.
#define DDPSIM_CUDA_CHECK_LAUNCH(kernel_name)                                                  \
  do {                                                                                         \
    const cudaError_t ddpsim_status_ = cudaPeekAtLastError();                                  \
    if (ddpsim_status_ != cudaSuccess)                                                         \
      ::ddpsim::kernels::raise_gpu_error("CUDA", "launch of " kernel_name, __FILE__, __LINE__, \
                                         ddpsim_status_, cudaGetErrorString(ddpsim_status_),   \
                                         false);                                               \
  } while (0)

#define DDPSIM_CUBLAS_CHECK(call)                                                             \
  do {                                                                                        \
    const cublasStatus_t ddpsim_status_ = (call);                                             \
    if (ddpsim_status_ != CUBLAS_STATUS_SUCCESS)                                              \
      ::ddpsim::kernels::raise_gpu_error("cuBLAS", #call, __FILE__, __LINE__, ddpsim_status_, \
                                         cublasGetStatusString(ddpsim_status_),               \
                                         ddpsim_status_ == CUBLAS_STATUS_ALLOC_FAILED);       \
  } while (0)

#define DDPSIM_CUDNN_CHECK(call)                                                                   \
  do {                                                                                             \
    const cudnnStatus_t ddpsim_status_ = (call);                                                   \
    if (ddpsim_status_ != CUDNN_STATUS_SUCCESS)                                                    \
      ::ddpsim::kernels::raise_gpu_error(                                                          \
          "cuDNN", #call, __FILE__, __LINE__, ddpsim_status_, cudnnGetErrorString(ddpsim_status_), \
          ddpsim_status_ == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ||                  \
              ddpsim_status_ == CUDNN_STATUS_INTERNAL_ERROR_DEVICE_ALLOCATION_FAILED);             \
  } while (0)

#define DDPSIM_NCCL_CHECK(call)                                                             \
  do {                                                                                      \
    const ncclResult_t ddpsim_status_ = (call);                                             \
    if (ddpsim_status_ != ncclSuccess && ddpsim_status_ != ncclInProgress)                  \
      ::ddpsim::kernels::raise_gpu_error("NCCL", #call, __FILE__, __LINE__, ddpsim_status_, \
                                         ncclGetErrorString(ddpsim_status_), false);        \
  } while (0)

#define DDPSIM_CUPTI_CHECK(call)                                                             \
  do {                                                                                       \
    const CUptiResult ddpsim_status_ = (call);                                               \
    if (ddpsim_status_ != CUPTI_SUCCESS) {                                                   \
      const char* ddpsim_text_ = "unknown CUPTI error";                                      \
      cuptiGetResultString(ddpsim_status_, &ddpsim_text_);                                   \
      ::ddpsim::kernels::raise_gpu_error("CUPTI", #call, __FILE__, __LINE__, ddpsim_status_, \
                                         ddpsim_text_, false);                               \
    }                                                                                        \
  } while (0)
