#include "kernels/device_buffer.h"

#include <cstdio>
#include <string>
#include <utility>

namespace ddpsim::kernels {

std::string format_bytes(size_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 4) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof buf, u == 0 ? "%.0f %s" : "%.2f %s", v, units[u]);
  return buf;
}

DeviceBuffer::DeviceBuffer(size_t bytes) : bytes_(bytes) {
  if (bytes == 0) return;
  const cudaError_t status = cudaMalloc(&ptr_, bytes);
  if (status != cudaSuccess) {
    cudaGetLastError();  // clear the sticky-free allocation error so later calls still work
    ptr_ = nullptr;
    const std::string call = "cudaMalloc(" + format_bytes(bytes) + ")";
    raise_gpu_error("CUDA", call.c_str(), __FILE__, __LINE__, status, cudaGetErrorString(status),
                    status == cudaErrorMemoryAllocation);
  }
}

DeviceBuffer::~DeviceBuffer() {
  if (ptr_ != nullptr) cudaFree(ptr_);  // no throw from a destructor; a failure here is moot
}

DeviceBuffer::DeviceBuffer(DeviceBuffer&& other) noexcept
    : ptr_(std::exchange(other.ptr_, nullptr)), bytes_(std::exchange(other.bytes_, 0)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = std::exchange(other.ptr_, nullptr);
    bytes_ = std::exchange(other.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::poison(cudaStream_t stream) {
  if (bytes_ > 0) DDPSIM_CUDA_CHECK(cudaMemsetAsync(ptr_, 0xFF, bytes_, stream));
}

void DeviceBuffer::zero(cudaStream_t stream) {
  if (bytes_ > 0) DDPSIM_CUDA_CHECK(cudaMemsetAsync(ptr_, 0, bytes_, stream));
}

void DeviceBuffer::upload(const void* host, size_t bytes) {
  DDPSIM_CUDA_CHECK(cudaMemcpy(ptr_, host, bytes, cudaMemcpyHostToDevice));
}

void DeviceBuffer::download(void* host, size_t bytes) const {
  DDPSIM_CUDA_CHECK(cudaMemcpy(host, ptr_, bytes, cudaMemcpyDeviceToHost));
}

PinnedBuffer::PinnedBuffer(size_t bytes) : bytes_(bytes) {
  DDPSIM_CUDA_CHECK(cudaMallocHost(&ptr_, bytes));
}

PinnedBuffer::~PinnedBuffer() {
  if (ptr_ != nullptr) cudaFreeHost(ptr_);
}

}  // namespace ddpsim::kernels
