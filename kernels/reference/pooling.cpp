#include "kernels/reference/pooling.h"

#include <cstddef>

namespace ddpsim::ref {

namespace {

// Calls f(output_index, input_index) for every in-bounds position of every window.
template <class F>
void for_each_window_elem(const PoolShape& s, F f) {
  const int64_t oh = s.out_h(), ow = s.out_w();
  for (int64_t nc = 0; nc < s.n * s.c; ++nc)
    for (int64_t p = 0; p < oh; ++p)
      for (int64_t q = 0; q < ow; ++q)
        for (int64_t r = 0; r < s.window; ++r)
          for (int64_t t = 0; t < s.window; ++t) {
            const int64_t ih = p * s.stride - s.pad + r, iw = q * s.stride - s.pad + t;
            if (ih < 0 || ih >= s.h || iw < 0 || iw >= s.w) continue;
            f((nc * oh + p) * ow + q, (nc * s.h + ih) * s.w + iw);
          }
}

std::vector<int64_t> argmax(const Vec& x, const PoolShape& s) {
  std::vector<int64_t> arg(s.output_elems(), -1);
  for_each_window_elem(s, [&](int64_t o, int64_t i) {
    if (arg[o] < 0 || x[i] > x[arg[o]]) arg[o] = i;
  });
  return arg;
}

}  // namespace

Vec max_pool_fwd(const Vec& x, const PoolShape& s) {
  const std::vector<int64_t> arg = argmax(x, s);
  Vec y(arg.size());
  for (std::size_t o = 0; o < arg.size(); ++o) y[o] = x[arg[o]];
  return y;
}

Vec max_pool_bwd(const Vec& x, const Vec& dy, const PoolShape& s) {
  const std::vector<int64_t> arg = argmax(x, s);
  Vec dx(x.size(), 0.0);
  for (std::size_t o = 0; o < arg.size(); ++o) dx[arg[o]] += dy[o];
  return dx;
}

Vec avg_pool_fwd(const Vec& x, const PoolShape& s) {
  Vec y(s.output_elems(), 0.0);
  const double area = static_cast<double>(s.window * s.window);
  for_each_window_elem(s, [&](int64_t o, int64_t i) { y[o] += x[i] / area; });
  return y;
}

Vec avg_pool_bwd(const Vec& dy, const PoolShape& s) {
  Vec dx(s.n * s.c * s.h * s.w, 0.0);
  const double area = static_cast<double>(s.window * s.window);
  for_each_window_elem(s, [&](int64_t o, int64_t i) { dx[i] += dy[o] / area; });
  return dx;
}

}  // namespace ddpsim::ref
