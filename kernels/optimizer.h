// Own CUDA kernels for the optimizer updates over fp32 master weights and gradients, with
// PyTorch's semantics (see kernels/reference/optimizer.h): SGD with momentum (dampening 0) and
// Adam with L2 weight decay. One fused element-wise pass each, in place.
#pragma once

#include <cuda_runtime_api.h>

#include <cstdint>

namespace ddpsim::kernels {

struct SgdMomentumParams {
  float lr = 0.1f;
  float momentum = 0.9f;
  float weight_decay = 0.f;
};
void sgd_momentum_step(float* w, const float* g, float* buf, int64_t n, bool first_step,
                       const SgdMomentumParams& h, cudaStream_t stream);

struct AdamParams {
  float lr = 1e-3f;
  float beta1 = 0.9f;
  float beta2 = 0.999f;
  float eps = 1e-8f;
  float weight_decay = 0.f;
};
// step counts from 1.
void adam_step(float* w, const float* g, float* m, float* v, int64_t n, int step,
               const AdamParams& h, cudaStream_t stream);

}  // namespace ddpsim::kernels
