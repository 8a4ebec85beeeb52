// Double-precision CPU references of 2-D max and average pooling over NCHW (kernels/cudnn_ops.h).
// Average pooling divides by the full window, padding included (PyTorch's count_include_pad=True,
// cuDNN's CUDNN_POOLING_AVERAGE_COUNT_INCLUDE_PADDING). Max pooling ignores padded positions.
#pragma once

#include <cstdint>
#include <vector>

namespace ddpsim::ref {

using Vec = std::vector<double>;

struct PoolShape {
  int64_t n = 1, c = 1, h = 1, w = 1;
  int64_t window = 2, stride = 2, pad = 0;

  int64_t out_h() const { return (h + 2 * pad - window) / stride + 1; }
  int64_t out_w() const { return (w + 2 * pad - window) / stride + 1; }
  int64_t output_elems() const { return n * c * out_h() * out_w(); }
};

Vec max_pool_fwd(const Vec& x, const PoolShape& s);
// The gradient of each output goes to the (first) maximum of its window.
Vec max_pool_bwd(const Vec& x, const Vec& dy, const PoolShape& s);
Vec avg_pool_fwd(const Vec& x, const PoolShape& s);
Vec avg_pool_bwd(const Vec& dy, const PoolShape& s);

}  // namespace ddpsim::ref
