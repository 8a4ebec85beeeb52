#include "kernels/reference/elementwise.h"

#include <cmath>

namespace ddpsim::ref {

namespace {
constexpr double kInvSqrt2 = 0.70710678118654752440;
constexpr double kInvSqrt2Pi = 0.39894228040143267794;

double normal_cdf(double x) { return 0.5 * (1.0 + std::erf(x * kInvSqrt2)); }
double normal_pdf(double x) { return kInvSqrt2Pi * std::exp(-0.5 * x * x); }
}  // namespace

Vec relu_fwd(const Vec& x) {
  Vec y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] > 0 ? x[i] : 0;
  return y;
}

Vec relu_bwd(const Vec& x, const Vec& dy) {
  Vec dx(x.size());
  for (size_t i = 0; i < x.size(); ++i) dx[i] = x[i] > 0 ? dy[i] : 0;
  return dx;
}

Vec gelu_fwd(const Vec& x) {
  Vec y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = x[i] * normal_cdf(x[i]);
  return y;
}

Vec gelu_bwd(const Vec& x, const Vec& dy) {
  Vec dx(x.size());
  for (size_t i = 0; i < x.size(); ++i)
    dx[i] = dy[i] * (normal_cdf(x[i]) + x[i] * normal_pdf(x[i]));
  return dx;
}

Vec dropout_fwd(const Vec& x, const std::vector<uint8_t>& keep, double p) {
  Vec y(x.size());
  for (size_t i = 0; i < x.size(); ++i) y[i] = keep[i] ? x[i] / (1.0 - p) : 0.0;
  return y;
}

Vec add(const Vec& a, const Vec& b) {
  Vec y(a.size());
  for (size_t i = 0; i < a.size(); ++i) y[i] = a[i] + b[i];
  return y;
}

}  // namespace ddpsim::ref
