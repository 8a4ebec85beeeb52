// Double-precision CPU references of row-wise softmax and layer norm (kernels/softmax.cu,
// kernels/layer_norm.cu). Matrices are row-major `rows` x `cols`; normalisation is per row.
#pragma once

#include <cstdint>
#include <vector>

namespace ddpsim::ref {

using Vec = std::vector<double>;

Vec softmax_fwd(const Vec& x, int64_t rows, int64_t cols);
// dx = y * (dy - sum_j dy_j y_j), per row.
Vec softmax_bwd(const Vec& y, const Vec& dy, int64_t rows, int64_t cols);

struct LayerNormForward {
  Vec y;
  Vec mean;  // per row
  Vec rstd;  // per row: 1 / sqrt(biased variance + eps)
};
LayerNormForward layer_norm_fwd(const Vec& x, const Vec& gamma, const Vec& beta, int64_t rows,
                                int64_t cols, double eps);

struct LayerNormBackward {
  Vec dx;
  Vec dgamma;
  Vec dbeta;
};
LayerNormBackward layer_norm_bwd(const Vec& x, const Vec& gamma, const Vec& dy, const Vec& mean,
                                 const Vec& rstd, int64_t rows, int64_t cols);

}  // namespace ddpsim::ref
