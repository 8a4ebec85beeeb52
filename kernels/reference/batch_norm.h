// Double-precision CPU reference of training-mode batch normalisation over NCHW (statistics per
// channel over N, H, W; the biased variance normalises, as cuDNN's spatial mode and PyTorch).
#pragma once

#include <cstdint>
#include <vector>

namespace ddpsim::ref {

using Vec = std::vector<double>;

struct BatchNormForward {
  Vec y;
  Vec mean;  // per channel
  Vec rstd;  // per channel: 1 / sqrt(biased variance + eps)
};
BatchNormForward batch_norm_fwd(const Vec& x, const Vec& gamma, const Vec& beta, int64_t n,
                                int64_t c, int64_t hw, double eps);

struct BatchNormBackward {
  Vec dx;
  Vec dgamma;
  Vec dbeta;
};
BatchNormBackward batch_norm_bwd(const Vec& x, const Vec& gamma, const Vec& dy, const Vec& mean,
                                 const Vec& rstd, int64_t n, int64_t c, int64_t hw);

}  // namespace ddpsim::ref
