#include "kernels/reference/softmax.h"

#include <algorithm>
#include <cmath>

namespace ddpsim::ref {

Vec softmax_fwd(const Vec& x, int64_t rows, int64_t cols) {
  Vec y(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    const double* in = x.data() + r * cols;
    double* out = y.data() + r * cols;
    const double m = *std::max_element(in, in + cols);  // shift: exp never overflows
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) sum += out[c] = std::exp(in[c] - m);
    for (int64_t c = 0; c < cols; ++c) out[c] /= sum;
  }
  return y;
}

Vec softmax_bwd(const Vec& y, const Vec& dy, int64_t rows, int64_t cols) {
  Vec dx(y.size());
  for (int64_t r = 0; r < rows; ++r) {
    double dot = 0;
    for (int64_t c = 0; c < cols; ++c) dot += dy[r * cols + c] * y[r * cols + c];
    for (int64_t c = 0; c < cols; ++c)
      dx[r * cols + c] = y[r * cols + c] * (dy[r * cols + c] - dot);
  }
  return dx;
}

LayerNormForward layer_norm_fwd(const Vec& x, const Vec& gamma, const Vec& beta, int64_t rows,
                                int64_t cols, double eps) {
  LayerNormForward f{Vec(x.size()), Vec(rows), Vec(rows)};
  for (int64_t r = 0; r < rows; ++r) {
    const double* in = x.data() + r * cols;
    double mean = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c) mean += in[c];
    mean /= cols;
    for (int64_t c = 0; c < cols; ++c) var += (in[c] - mean) * (in[c] - mean);
    var /= cols;
    const double rstd = 1.0 / std::sqrt(var + eps);
    for (int64_t c = 0; c < cols; ++c)
      f.y[r * cols + c] = (in[c] - mean) * rstd * gamma[c] + beta[c];
    f.mean[r] = mean;
    f.rstd[r] = rstd;
  }
  return f;
}

LayerNormBackward layer_norm_bwd(const Vec& x, const Vec& gamma, const Vec& dy, const Vec& mean,
                                 const Vec& rstd, int64_t rows, int64_t cols) {
  LayerNormBackward b{Vec(x.size()), Vec(cols, 0.0), Vec(cols, 0.0)};
  for (int64_t r = 0; r < rows; ++r) {
    // With xhat = (x - mean) * rstd and g = dy * gamma:
    // dx = rstd * (g - mean(g) - xhat * mean(g * xhat)).
    double mean_g = 0, mean_gx = 0;
    for (int64_t c = 0; c < cols; ++c) {
      const double xhat = (x[r * cols + c] - mean[r]) * rstd[r];
      const double g = dy[r * cols + c] * gamma[c];
      mean_g += g;
      mean_gx += g * xhat;
      b.dgamma[c] += dy[r * cols + c] * xhat;
      b.dbeta[c] += dy[r * cols + c];
    }
    mean_g /= cols;
    mean_gx /= cols;
    for (int64_t c = 0; c < cols; ++c) {
      const double xhat = (x[r * cols + c] - mean[r]) * rstd[r];
      const double g = dy[r * cols + c] * gamma[c];
      b.dx[r * cols + c] = rstd[r] * (g - mean_g - xhat * mean_gx);
    }
  }
  return b;
}

}  // namespace ddpsim::ref
