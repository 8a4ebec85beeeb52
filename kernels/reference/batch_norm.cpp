#include "kernels/reference/batch_norm.h"

#include <cmath>

namespace ddpsim::ref {

BatchNormForward batch_norm_fwd(const Vec& x, const Vec& gamma, const Vec& beta, int64_t n,
                                int64_t c, int64_t hw, double eps) {
  BatchNormForward f{Vec(x.size()), Vec(c), Vec(c)};
  const double count = static_cast<double>(n * hw);
  for (int64_t ch = 0; ch < c; ++ch) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < hw; ++j) mean += x[(i * c + ch) * hw + j];
    mean /= count;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < hw; ++j) {
        const double d = x[(i * c + ch) * hw + j] - mean;
        var += d * d;
      }
    var /= count;
    const double rstd = 1.0 / std::sqrt(var + eps);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < hw; ++j) {
        const int64_t idx = (i * c + ch) * hw + j;
        f.y[idx] = (x[idx] - mean) * rstd * gamma[ch] + beta[ch];
      }
    f.mean[ch] = mean;
    f.rstd[ch] = rstd;
  }
  return f;
}

BatchNormBackward batch_norm_bwd(const Vec& x, const Vec& gamma, const Vec& dy, const Vec& mean,
                                 const Vec& rstd, int64_t n, int64_t c, int64_t hw) {
  BatchNormBackward b{Vec(x.size()), Vec(c, 0.0), Vec(c, 0.0)};
  const double count = static_cast<double>(n * hw);
  for (int64_t ch = 0; ch < c; ++ch) {
    double sum_dy = 0, sum_dy_xhat = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < hw; ++j) {
        const int64_t idx = (i * c + ch) * hw + j;
        sum_dy += dy[idx];
        sum_dy_xhat += dy[idx] * (x[idx] - mean[ch]) * rstd[ch];
      }
    b.dgamma[ch] = sum_dy_xhat;
    b.dbeta[ch] = sum_dy;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < hw; ++j) {
        const int64_t idx = (i * c + ch) * hw + j;
        const double xhat = (x[idx] - mean[ch]) * rstd[ch];
        b.dx[idx] = gamma[ch] * rstd[ch] * (dy[idx] - sum_dy / count - xhat * sum_dy_xhat / count);
      }
  }
  return b;
}

}  // namespace ddpsim::ref
