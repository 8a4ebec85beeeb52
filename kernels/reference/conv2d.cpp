#include "kernels/reference/conv2d.h"

namespace ddpsim::ref {

namespace {

// Calls f(x_index, filter_index, y_index) for every multiply-accumulate of the convolution, so
// forward and both backward passes share one loop nest and cannot disagree on indexing.
template <class F>
void for_each_mac(const ConvShape& s, F f) {
  const int64_t cg = s.c / s.groups, kg = s.k / s.groups;
  const int64_t oh = s.out_h(), ow = s.out_w();
  for (int64_t n = 0; n < s.n; ++n)
    for (int64_t k = 0; k < s.k; ++k) {
      const int64_t g = k / kg;
      for (int64_t p = 0; p < oh; ++p)
        for (int64_t q = 0; q < ow; ++q) {
          const int64_t y = ((n * s.k + k) * oh + p) * ow + q;
          for (int64_t c = 0; c < cg; ++c)
            for (int64_t r = 0; r < s.r; ++r) {
              const int64_t ih = p * s.stride_h - s.pad_h + r;
              if (ih < 0 || ih >= s.h) continue;
              for (int64_t t = 0; t < s.s; ++t) {
                const int64_t iw = q * s.stride_w - s.pad_w + t;
                if (iw < 0 || iw >= s.w) continue;
                const int64_t x = ((n * s.c + g * cg + c) * s.h + ih) * s.w + iw;
                const int64_t w = ((k * cg + c) * s.r + r) * s.s + t;
                f(x, w, y);
              }
            }
        }
    }
}

}  // namespace

Vec conv2d_fwd(const Vec& x, const Vec& filter, const ConvShape& shape) {
  Vec y(shape.output_elems(), 0.0);
  for_each_mac(shape, [&](int64_t xi, int64_t wi, int64_t yi) { y[yi] += x[xi] * filter[wi]; });
  return y;
}

Vec conv2d_bwd_data(const Vec& dy, const Vec& filter, const ConvShape& shape) {
  Vec dx(shape.input_elems(), 0.0);
  for_each_mac(shape, [&](int64_t xi, int64_t wi, int64_t yi) { dx[xi] += dy[yi] * filter[wi]; });
  return dx;
}

Vec conv2d_bwd_filter(const Vec& x, const Vec& dy, const ConvShape& shape) {
  Vec dw(shape.filter_elems(), 0.0);
  for_each_mac(shape, [&](int64_t xi, int64_t wi, int64_t yi) { dw[wi] += x[xi] * dy[yi]; });
  return dw;
}

}  // namespace ddpsim::ref
