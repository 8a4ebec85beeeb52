// Own CUDA kernels for the element-wise layers: ReLU, GELU (exact erf form, PyTorch's default),
// dropout and residual add, forward and backward, plus a cast and a random fill used by the
// harness and the tests. Pointers are device pointers of `dtype` unless stated; all launches are
// asynchronous on `stream` and checked.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/dtype.h"

namespace ddpsim::kernels {

void relu_fwd(DType dtype, const void* x, void* y, int64_t n, cudaStream_t stream);
void relu_bwd(DType dtype, const void* x, const void* dy, void* dx, int64_t n, cudaStream_t stream);
void gelu_fwd(DType dtype, const void* x, void* y, int64_t n, cudaStream_t stream);
void gelu_bwd(DType dtype, const void* x, const void* dy, void* dx, int64_t n, cudaStream_t stream);

// Inverted dropout: keep (uint8, written) = hash(seed, i) >= p; y = x * keep / (1 - p).
void dropout_fwd(DType dtype, const void* x, void* y, uint8_t* keep, int64_t n, float p,
                 uint64_t seed, cudaStream_t stream);
void dropout_bwd(DType dtype, const void* dy, const uint8_t* keep, void* dx, int64_t n, float p,
                 cudaStream_t stream);

void add(DType dtype, const void* a, const void* b, void* y, int64_t n, cudaStream_t stream);

// dst[i] = (to) src[i]; round to nearest.
void cast(DType from, const void* src, DType to, void* dst, int64_t n, cudaStream_t stream);

// Uniform values in [lo, hi) from a counter-based hash of (seed, i): no state, reproducible.
void fill_uniform(DType dtype, void* x, int64_t n, float lo, float hi, uint64_t seed,
                  cudaStream_t stream);
void fill_indices(int32_t* ids, int64_t n, int32_t limit, uint64_t seed, cudaStream_t stream);

}  // namespace ddpsim::kernels
