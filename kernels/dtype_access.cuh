// Device-side conversions between the activation types and float: every kernel loads its
// inputs as float, computes in float and stores in the activation type.
#pragma once

#include <cuda_bf16.h>
#include <cuda_fp16.h>

#include "kernels/check.h"
#include "kernels/dtype.h"

namespace ddpsim::kernels {

__device__ __forceinline__ float to_float(float v) { return v; }
__device__ __forceinline__ float to_float(__half v) { return __half2float(v); }
__device__ __forceinline__ float to_float(__nv_bfloat16 v) { return __bfloat162float(v); }

template <class T>
__device__ __forceinline__ T from_float(float v);
template <>
__device__ __forceinline__ float from_float<float>(float v) {
  return v;
}
template <>
__device__ __forceinline__ __half from_float<__half>(float v) {
  return __float2half_rn(v);
}
template <>
__device__ __forceinline__ __nv_bfloat16 from_float<__nv_bfloat16>(float v) {
  return __float2bfloat16_rn(v);
}

// Calls f(T{}) with T the C++ type of `dtype`.
template <class F>
void dispatch_dtype(DType dtype, F&& f) {
  switch (dtype) {
    case DType::kF32:
      f(float{});
      return;
    case DType::kF16:
      f(__half{});
      return;
    case DType::kBF16:
      f(__nv_bfloat16{});
      return;
  }
}

inline unsigned grid_for(long long n, unsigned block) {
  const long long blocks = (n + block - 1) / block;
  return static_cast<unsigned>(blocks < 65535LL * 32 ? blocks : 65535LL * 32);
}

}  // namespace ddpsim::kernels
