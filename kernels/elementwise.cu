#include <cuda_runtime.h>

#include "kernels/dtype_access.cuh"
#include "kernels/elementwise.h"

namespace ddpsim::kernels {

namespace {

constexpr unsigned kBlock = 256;

// splitmix64: a good 64-bit mix of (seed, index), so fills and dropout masks need no state.
__device__ __forceinline__ uint64_t mix(uint64_t z) {
  z += 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

__device__ __forceinline__ float uniform01(uint64_t seed, int64_t i) {
  return static_cast<float>(mix(seed * 0x100000001B3ull + static_cast<uint64_t>(i)) >> 40) *
         (1.0f / 16777216.0f);
}

#define GRID_STRIDE_LOOP(i, n)                                                           \
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
       i += static_cast<int64_t>(blockDim.x) * gridDim.x)

template <class T>
__global__ void relu_fwd_kernel(const T* x, T* y, int64_t n) {
  GRID_STRIDE_LOOP(i, n) {
    const float v = to_float(x[i]);
    y[i] = from_float<T>(v > 0.f ? v : 0.f);
  }
}

template <class T>
__global__ void relu_bwd_kernel(const T* x, const T* dy, T* dx, int64_t n) {
  GRID_STRIDE_LOOP(i, n) { dx[i] = from_float<T>(to_float(x[i]) > 0.f ? to_float(dy[i]) : 0.f); }
}

// erfc, not 1 + erf: for v << 0, 1 + erf(v / sqrt 2) cancels to a few correct bits in float
// (GELU's fp32 result missed the double reference by 1e-4 relative near v = -3.9 on an H200).
__device__ __forceinline__ float normal_cdf(float v) {
  return 0.5f * erfcf(-v * 0.70710678118654752f);
}

template <class T>
__global__ void gelu_fwd_kernel(const T* x, T* y, int64_t n) {
  GRID_STRIDE_LOOP(i, n) {
    const float v = to_float(x[i]);
    y[i] = from_float<T>(v * normal_cdf(v));
  }
}

template <class T>
__global__ void gelu_bwd_kernel(const T* x, const T* dy, T* dx, int64_t n) {
  GRID_STRIDE_LOOP(i, n) {
    const float v = to_float(x[i]);
    const float pdf = 0.39894228040143268f * expf(-0.5f * v * v);
    dx[i] = from_float<T>(to_float(dy[i]) * (normal_cdf(v) + v * pdf));
  }
}

template <class T>
__global__ void dropout_fwd_kernel(const T* x, T* y, uint8_t* keep, int64_t n, float p,
                                   uint64_t seed) {
  const float scale = 1.f / (1.f - p);
  GRID_STRIDE_LOOP(i, n) {
    const bool k = uniform01(seed, i) >= p;
    keep[i] = k;
    y[i] = from_float<T>(k ? to_float(x[i]) * scale : 0.f);
  }
}

template <class T>
__global__ void dropout_bwd_kernel(const T* dy, const uint8_t* keep, T* dx, int64_t n, float p) {
  const float scale = 1.f / (1.f - p);
  GRID_STRIDE_LOOP(i, n) { dx[i] = from_float<T>(keep[i] ? to_float(dy[i]) * scale : 0.f); }
}

template <class T>
__global__ void add_kernel(const T* a, const T* b, T* y, int64_t n) {
  GRID_STRIDE_LOOP(i, n) { y[i] = from_float<T>(to_float(a[i]) + to_float(b[i])); }
}

template <class S, class D>
__global__ void cast_kernel(const S* src, D* dst, int64_t n) {
  GRID_STRIDE_LOOP(i, n) { dst[i] = from_float<D>(to_float(src[i])); }
}

template <class T>
__global__ void fill_uniform_kernel(T* x, int64_t n, float lo, float hi, uint64_t seed) {
  GRID_STRIDE_LOOP(i, n) { x[i] = from_float<T>(lo + (hi - lo) * uniform01(seed, i)); }
}

__global__ void fill_indices_kernel(int32_t* ids, int64_t n, int32_t limit, uint64_t seed) {
  GRID_STRIDE_LOOP(i, n) {
    ids[i] = static_cast<int32_t>(mix(seed * 0x100000001B3ull + i) % static_cast<uint64_t>(limit));
  }
}

}  // namespace

void relu_fwd(DType dtype, const void* x, void* y, int64_t n, cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    relu_fwd_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(static_cast<const T*>(x),
                                                                static_cast<T*>(y), n);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("relu_fwd");
}

void relu_bwd(DType dtype, const void* x, const void* dy, void* dx, int64_t n,
              cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    relu_bwd_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<T*>(dx), n);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("relu_bwd");
}

void gelu_fwd(DType dtype, const void* x, void* y, int64_t n, cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    gelu_fwd_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(static_cast<const T*>(x),
                                                                static_cast<T*>(y), n);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("gelu_fwd");
}

void gelu_bwd(DType dtype, const void* x, const void* dy, void* dx, int64_t n,
              cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    gelu_bwd_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), static_cast<T*>(dx), n);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("gelu_bwd");
}

void dropout_fwd(DType dtype, const void* x, void* y, uint8_t* keep, int64_t n, float p,
                 uint64_t seed, cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    dropout_fwd_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(
        static_cast<const T*>(x), static_cast<T*>(y), keep, n, p, seed);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("dropout_fwd");
}

void dropout_bwd(DType dtype, const void* dy, const uint8_t* keep, void* dx, int64_t n, float p,
                 cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    dropout_bwd_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(static_cast<const T*>(dy), keep,
                                                                   static_cast<T*>(dx), n, p);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("dropout_bwd");
}

void add(DType dtype, const void* a, const void* b, void* y, int64_t n, cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    add_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(
        static_cast<const T*>(a), static_cast<const T*>(b), static_cast<T*>(y), n);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("add");
}

void cast(DType from, const void* src, DType to, void* dst, int64_t n, cudaStream_t stream) {
  dispatch_dtype(from, [&](auto s) {
    using S = decltype(s);
    dispatch_dtype(to, [&](auto d) {
      using D = decltype(d);
      cast_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(static_cast<const S*>(src),
                                                              static_cast<D*>(dst), n);
    });
  });
  DDPSIM_CUDA_CHECK_LAUNCH("cast");
}

void fill_uniform(DType dtype, void* x, int64_t n, float lo, float hi, uint64_t seed,
                  cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    fill_uniform_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(static_cast<T*>(x), n, lo, hi,
                                                                    seed);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("fill_uniform");
}

void fill_indices(int32_t* ids, int64_t n, int32_t limit, uint64_t seed, cudaStream_t stream) {
  fill_indices_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(ids, n, limit, seed);
  DDPSIM_CUDA_CHECK_LAUNCH("fill_indices");
}

}  // namespace ddpsim::kernels
