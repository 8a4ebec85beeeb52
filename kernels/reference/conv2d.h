// Double-precision CPU references of the cuDNN-backed image layers (kernels/cudnn_ops.h):
// 2-D convolution (cross-correlation, as cuDNN and PyTorch compute it) forward, backward-data
// and backward-filter, in NCHW with filters K x C/groups x R x S.
#pragma once

#include <cstdint>
#include <vector>

namespace ddpsim::ref {

using Vec = std::vector<double>;

struct ConvShape {
  int64_t n = 1, c = 1, h = 1, w = 1;  // input
  int64_t k = 1;                       // output channels
  int64_t r = 1, s = 1;                // filter height, width
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  int64_t groups = 1;

  int64_t out_h() const { return (h + 2 * pad_h - r) / stride_h + 1; }
  int64_t out_w() const { return (w + 2 * pad_w - s) / stride_w + 1; }
  int64_t input_elems() const { return n * c * h * w; }
  int64_t filter_elems() const { return k * (c / groups) * r * s; }
  int64_t output_elems() const { return n * k * out_h() * out_w(); }
};

Vec conv2d_fwd(const Vec& x, const Vec& filter, const ConvShape& shape);
Vec conv2d_bwd_data(const Vec& dy, const Vec& filter, const ConvShape& shape);
Vec conv2d_bwd_filter(const Vec& x, const Vec& dy, const ConvShape& shape);

}  // namespace ddpsim::ref
