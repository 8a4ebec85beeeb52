// Own CUDA kernels for the row-wise layers: softmax, layer norm and cross-entropy loss, forward
// and backward. Matrices are row-major `rows` x `cols` of `dtype`; statistics, gamma/beta and
// their gradients are fp32. One thread block per row, float accumulation.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

#include "kernels/dtype.h"

namespace ddpsim::kernels {

void softmax_fwd(DType dtype, const void* x, void* y, int64_t rows, int64_t cols,
                 cudaStream_t stream);
// dx = y * (dy - sum(dy * y)) per row.
void softmax_bwd(DType dtype, const void* y, const void* dy, void* dx, int64_t rows, int64_t cols,
                 cudaStream_t stream);

// y = (x - mean) * rstd * gamma + beta; mean and rstd (1/sqrt(var + eps)) saved per row.
void layer_norm_fwd(DType dtype, const void* x, const float* gamma, const float* beta, void* y,
                    float* mean, float* rstd, int64_t rows, int64_t cols, float eps,
                    cudaStream_t stream);
// dgamma and dbeta are written (not accumulated).
void layer_norm_bwd(DType dtype, const void* x, const float* gamma, const void* dy,
                    const float* mean, const float* rstd, void* dx, float* dgamma, float* dbeta,
                    int64_t rows, int64_t cols, cudaStream_t stream);

// loss[r] = -log softmax(logits[r])[labels[r]] (the mean over rows is the PyTorch loss).
void cross_entropy_fwd(DType dtype, const void* logits, const int32_t* labels, float* loss,
                       int64_t rows, int64_t classes, cudaStream_t stream);
// dlogits = (softmax(logits) - onehot(label)) / rows: the gradient of the mean loss.
void cross_entropy_bwd(DType dtype, const void* logits, const int32_t* labels, void* dlogits,
                       int64_t rows, int64_t classes, cudaStream_t stream);

}  // namespace ddpsim::kernels
