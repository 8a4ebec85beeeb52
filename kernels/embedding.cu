#include <cuda_runtime.h>

#include "kernels/dtype_access.cuh"
#include "kernels/embedding.h"

namespace ddpsim::kernels {

namespace {

constexpr unsigned kBlock = 256;

template <class T>
__global__ void embedding_fwd_kernel(const T* table, const int32_t* ids, T* out, int64_t n,
                                     int64_t dim) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t t = i / dim, d = i % dim;
    out[i] = table[static_cast<int64_t>(ids[t]) * dim + d];
  }
}

template <class T>
__global__ void embedding_bwd_kernel(const T* dout, const int32_t* ids, float* dtable, int64_t n,
                                     int64_t dim) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const int64_t t = i / dim, d = i % dim;
    atomicAdd(dtable + static_cast<int64_t>(ids[t]) * dim + d, to_float(dout[i]));
  }
}

}  // namespace

void embedding_fwd(DType dtype, const void* table, const int32_t* ids, void* out, int64_t tokens,
                   int64_t dim, cudaStream_t stream) {
  const int64_t n = tokens * dim;
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    embedding_fwd_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(
        static_cast<const T*>(table), ids, static_cast<T*>(out), n, dim);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("embedding_fwd");
}

void embedding_bwd(DType dtype, const void* dout, const int32_t* ids, float* dtable, int64_t tokens,
                   int64_t vocab, int64_t dim, cudaStream_t stream) {
  DDPSIM_CUDA_CHECK(cudaMemsetAsync(dtable, 0, sizeof(float) * vocab * dim, stream));
  const int64_t n = tokens * dim;
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    embedding_bwd_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(static_cast<const T*>(dout),
                                                                     ids, dtable, n, dim);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("embedding_bwd");
}

}  // namespace ddpsim::kernels
