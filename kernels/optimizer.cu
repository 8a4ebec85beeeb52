#include <cuda_runtime.h>

#include <cmath>

#include "kernels/dtype_access.cuh"
#include "kernels/optimizer.h"

namespace ddpsim::kernels {

namespace {

constexpr unsigned kBlock = 256;

__global__ void sgd_momentum_kernel(float* w, const float* g, float* buf, int64_t n, bool first,
                                    float lr, float momentum, float wd) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const float grad = g[i] + wd * w[i];
    const float b = first ? grad : momentum * buf[i] + grad;
    buf[i] = b;
    w[i] -= lr * b;
  }
}

__global__ void adam_kernel(float* w, const float* g, float* m, float* v, int64_t n, float lr,
                            float beta1, float beta2, float eps, float wd, float c1, float c2) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(blockDim.x) * gridDim.x) {
    const float grad = g[i] + wd * w[i];
    const float mi = beta1 * m[i] + (1.f - beta1) * grad;
    const float vi = beta2 * v[i] + (1.f - beta2) * grad * grad;
    m[i] = mi;
    v[i] = vi;
    w[i] -= lr * (mi / c1) / (sqrtf(vi / c2) + eps);
  }
}

}  // namespace

void sgd_momentum_step(float* w, const float* g, float* buf, int64_t n, bool first_step,
                       const SgdMomentumParams& h, cudaStream_t stream) {
  sgd_momentum_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(w, g, buf, n, first_step, h.lr,
                                                                  h.momentum, h.weight_decay);
  DDPSIM_CUDA_CHECK_LAUNCH("sgd_momentum_step");
}

void adam_step(float* w, const float* g, float* m, float* v, int64_t n, int step,
               const AdamParams& h, cudaStream_t stream) {
  // Bias corrections in double on the host, like torch.optim.Adam's Python-side math.
  const float c1 = static_cast<float>(1.0 - std::pow(static_cast<double>(h.beta1), step));
  const float c2 = static_cast<float>(1.0 - std::pow(static_cast<double>(h.beta2), step));
  adam_kernel<<<grid_for(n, kBlock), kBlock, 0, stream>>>(w, g, m, v, n, h.lr, h.beta1, h.beta2,
                                                          h.eps, h.weight_decay, c1, c2);
  DDPSIM_CUDA_CHECK_LAUNCH("adam_step");
}

}  // namespace ddpsim::kernels
