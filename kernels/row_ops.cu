#include <cuda_runtime.h>

#include <algorithm>

#include "kernels/block_reduce.cuh"
#include "kernels/dtype_access.cuh"
#include "kernels/row_ops.h"

namespace ddpsim::kernels {

namespace {

constexpr unsigned kRowBlock = 256;

template <class T>
__global__ void softmax_fwd_kernel(const T* x, T* y, int64_t cols) {
  __shared__ float scratch[32];
  const T* in = x + blockIdx.x * cols;
  T* out = y + blockIdx.x * cols;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, to_float(in[c]));
  m = block_max(m, scratch);
  float sum = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) sum += expf(to_float(in[c]) - m);
  sum = block_sum(sum, scratch);
  const float inv = 1.f / sum;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
    out[c] = from_float<T>(expf(to_float(in[c]) - m) * inv);
}

template <class T>
__global__ void softmax_bwd_kernel(const T* y, const T* dy, T* dx, int64_t cols) {
  __shared__ float scratch[32];
  const int64_t base = blockIdx.x * cols;
  float dot = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
    dot += to_float(dy[base + c]) * to_float(y[base + c]);
  dot = block_sum(dot, scratch);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
    dx[base + c] = from_float<T>(to_float(y[base + c]) * (to_float(dy[base + c]) - dot));
}

template <class T>
__global__ void layer_norm_fwd_kernel(const T* x, const float* gamma, const float* beta, T* y,
                                      float* mean_out, float* rstd_out, int64_t cols, float eps) {
  __shared__ float scratch[32];
  const int64_t base = blockIdx.x * cols;
  float sum = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) sum += to_float(x[base + c]);
  const float mean = block_sum(sum, scratch) / cols;
  float var = 0.f;  // two passes: no cancellation for large means
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    const float d = to_float(x[base + c]) - mean;
    var += d * d;
  }
  const float rstd = rsqrtf(block_sum(var, scratch) / cols + eps);
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x)
    y[base + c] = from_float<T>((to_float(x[base + c]) - mean) * rstd * gamma[c] + beta[c]);
  if (threadIdx.x == 0) {
    mean_out[blockIdx.x] = mean;
    rstd_out[blockIdx.x] = rstd;
  }
}

template <class T>
__global__ void layer_norm_bwd_dx_kernel(const T* x, const float* gamma, const T* dy,
                                         const float* mean, const float* rstd, T* dx,
                                         int64_t cols) {
  __shared__ float scratch[32];
  const int64_t base = blockIdx.x * cols;
  const float mu = mean[blockIdx.x], rs = rstd[blockIdx.x];
  float sum_g = 0.f, sum_gx = 0.f;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    const float g = to_float(dy[base + c]) * gamma[c];
    sum_g += g;
    sum_gx += g * (to_float(x[base + c]) - mu) * rs;
  }
  const float mean_g = block_sum(sum_g, scratch) / cols;
  const float mean_gx = block_sum(sum_gx, scratch) / cols;
  for (int64_t c = threadIdx.x; c < cols; c += blockDim.x) {
    const float xhat = (to_float(x[base + c]) - mu) * rs;
    const float g = to_float(dy[base + c]) * gamma[c];
    dx[base + c] = from_float<T>(rs * (g - mean_g - xhat * mean_gx));
  }
}

// One thread per column over a chunk of `chunk` rows (kParamRows, more where a grid's y
// dimension would exceed 65,535); chunks add into dgamma/dbeta (zeroed first). One thread per
// column over all rows left a few hundred threads looping over every row: 2 ms for GPT-2's 8192 x
// 768 on an H200 (measured), 75x the forward.
constexpr int64_t kParamRows = 32;

template <class T>
__global__ void layer_norm_bwd_params_kernel(const T* x, const T* dy, const float* mean,
                                             const float* rstd, float* dgamma, float* dbeta,
                                             int64_t rows, int64_t cols, int64_t chunk) {
  const int64_t c = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (c >= cols) return;
  const int64_t first = blockIdx.y * chunk;
  const int64_t last = first + chunk < rows ? first + chunk : rows;
  float dg = 0.f, db = 0.f;
  for (int64_t r = first; r < last; ++r) {
    const float d = to_float(dy[r * cols + c]);
    dg += d * (to_float(x[r * cols + c]) - mean[r]) * rstd[r];
    db += d;
  }
  atomicAdd(dgamma + c, dg);
  atomicAdd(dbeta + c, db);
}

template <class T>
__global__ void cross_entropy_fwd_kernel(const T* logits, const int32_t* labels, float* loss,
                                         int64_t classes) {
  __shared__ float scratch[32];
  const T* in = logits + blockIdx.x * classes;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) m = fmaxf(m, to_float(in[c]));
  m = block_max(m, scratch);
  float sum = 0.f;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) sum += expf(to_float(in[c]) - m);
  sum = block_sum(sum, scratch);
  if (threadIdx.x == 0) loss[blockIdx.x] = logf(sum) + m - to_float(in[labels[blockIdx.x]]);
}

template <class T>
__global__ void cross_entropy_bwd_kernel(const T* logits, const int32_t* labels, T* dlogits,
                                         int64_t classes, float inv_rows) {
  __shared__ float scratch[32];
  const T* in = logits + blockIdx.x * classes;
  T* out = dlogits + blockIdx.x * classes;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) m = fmaxf(m, to_float(in[c]));
  m = block_max(m, scratch);
  float sum = 0.f;
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) sum += expf(to_float(in[c]) - m);
  const float inv = 1.f / block_sum(sum, scratch);
  const int32_t label = labels[blockIdx.x];
  for (int64_t c = threadIdx.x; c < classes; c += blockDim.x) {
    const float p = expf(to_float(in[c]) - m) * inv;
    out[c] = from_float<T>((p - (c == label ? 1.f : 0.f)) * inv_rows);
  }
}

unsigned rows_grid(int64_t rows) { return static_cast<unsigned>(rows); }

}  // namespace

void softmax_fwd(DType dtype, const void* x, void* y, int64_t rows, int64_t cols,
                 cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    softmax_fwd_kernel<<<rows_grid(rows), kRowBlock, 0, stream>>>(static_cast<const T*>(x),
                                                                  static_cast<T*>(y), cols);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("softmax_fwd");
}

void softmax_bwd(DType dtype, const void* y, const void* dy, void* dx, int64_t rows, int64_t cols,
                 cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    softmax_bwd_kernel<<<rows_grid(rows), kRowBlock, 0, stream>>>(
        static_cast<const T*>(y), static_cast<const T*>(dy), static_cast<T*>(dx), cols);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("softmax_bwd");
}

void layer_norm_fwd(DType dtype, const void* x, const float* gamma, const float* beta, void* y,
                    float* mean, float* rstd, int64_t rows, int64_t cols, float eps,
                    cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    layer_norm_fwd_kernel<<<rows_grid(rows), kRowBlock, 0, stream>>>(
        static_cast<const T*>(x), gamma, beta, static_cast<T*>(y), mean, rstd, cols, eps);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("layer_norm_fwd");
}

void layer_norm_bwd(DType dtype, const void* x, const float* gamma, const void* dy,
                    const float* mean, const float* rstd, void* dx, float* dgamma, float* dbeta,
                    int64_t rows, int64_t cols, cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    layer_norm_bwd_dx_kernel<<<rows_grid(rows), kRowBlock, 0, stream>>>(
        static_cast<const T*>(x), gamma, static_cast<const T*>(dy), mean, rstd, static_cast<T*>(dx),
        cols);
    DDPSIM_CUDA_CHECK_LAUNCH("layer_norm_bwd_dx");
    DDPSIM_CUDA_CHECK(cudaMemsetAsync(dgamma, 0, cols * sizeof(float), stream));
    DDPSIM_CUDA_CHECK(cudaMemsetAsync(dbeta, 0, cols * sizeof(float), stream));
    const int64_t chunk = std::max<int64_t>(kParamRows, (rows + 65534) / 65535);
    const dim3 grid(grid_for(cols, kRowBlock), static_cast<unsigned>((rows + chunk - 1) / chunk));
    layer_norm_bwd_params_kernel<<<grid, kRowBlock, 0, stream>>>(
        static_cast<const T*>(x), static_cast<const T*>(dy), mean, rstd, dgamma, dbeta, rows, cols,
        chunk);
    DDPSIM_CUDA_CHECK_LAUNCH("layer_norm_bwd_params");
  });
}

void cross_entropy_fwd(DType dtype, const void* logits, const int32_t* labels, float* loss,
                       int64_t rows, int64_t classes, cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    cross_entropy_fwd_kernel<<<rows_grid(rows), kRowBlock, 0, stream>>>(
        static_cast<const T*>(logits), labels, loss, classes);
  });
  DDPSIM_CUDA_CHECK_LAUNCH("cross_entropy_fwd");
}

void cross_entropy_bwd(DType dtype, const void* logits, const int32_t* labels, void* dlogits,
                       int64_t rows, int64_t classes, cudaStream_t stream) {
  dispatch_dtype(dtype, [&](auto t) {
    using T = decltype(t);
    cross_entropy_bwd_kernel<<<rows_grid(rows), kRowBlock, 0, stream>>>(
        static_cast<const T*>(logits), labels, static_cast<T*>(dlogits), classes,
        1.f / static_cast<float>(rows));
  });
  DDPSIM_CUDA_CHECK_LAUNCH("cross_entropy_bwd");
}

}  // namespace ddpsim::kernels
