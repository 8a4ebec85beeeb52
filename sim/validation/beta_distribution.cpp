#include "sim/validation/beta_distribution.h"

#include <cmath>

namespace ddpsim {
namespace {

double continued_fraction(double a, double b, double x) {
  constexpr double kTiny = 1e-300;
  const double qab = a + b, qap = a + 1, qam = a - 1;
  double c = 1, d = 1 - qab * x / qap;
  if (std::abs(d) < kTiny) d = kTiny;
  d = 1 / d;
  double h = d;
  for (int m = 1; m <= 1000; ++m) {
    const int m2 = 2 * m;
    double aa = m * (b - m) * x / ((qam + m2) * (a + m2));
    d = 1 + aa * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1 / d;
    h *= d * c;
    aa = -(a + m) * (qab + m) * x / ((a + m2) * (qap + m2));
    d = 1 + aa * d;
    if (std::abs(d) < kTiny) d = kTiny;
    c = 1 + aa / c;
    if (std::abs(c) < kTiny) c = kTiny;
    d = 1 / d;
    const double del = d * c;
    h *= del;
    if (std::abs(del - 1) < 1e-14) break;
  }
  return h;
}

}  // namespace

double incomplete_beta(double a, double b, double x) {
  if (x <= 0) return 0;
  if (x >= 1) return 1;
  const double front = std::exp(std::lgamma(a + b) - std::lgamma(a) - std::lgamma(b) +
                                a * std::log(x) + b * std::log1p(-x));
  // The fraction converges fast on the side of the mean; the other side by symmetry.
  if (x < (a + 1) / (a + b + 2)) return front * continued_fraction(a, b, x) / a;
  return 1 - front * continued_fraction(b, a, 1 - x) / b;
}

double beta_quantile(double a, double b, double p) {
  double lo = 0, hi = 1;
  for (int i = 0; i < 200 && hi - lo > 1e-12; ++i) {
    const double mid = (lo + hi) / 2;
    (incomplete_beta(a, b, mid) < p ? lo : hi) = mid;
  }
  return (lo + hi) / 2;
}

double student_t_quantile(double q, int nu) {
  if (q == 0.5) return 0;
  // P(|T| > t) = I_{nu / (nu + t^2)}(nu / 2, 1 / 2).
  const double tail = 2 * (q > 0.5 ? 1 - q : q);
  const double x = beta_quantile(nu / 2.0, 0.5, tail);
  const double t = std::sqrt(nu * (1 - x) / x);
  return q > 0.5 ? t : -t;
}

ShareInterval clopper_pearson(int k, int n, double confidence) {
  ShareInterval s;
  if (n <= 0) return s;
  const double alpha = 1 - confidence;
  s.low = k == 0 ? 0 : beta_quantile(k, n - k + 1, alpha / 2);
  s.high = k == n ? 1 : beta_quantile(k + 1, n - k, 1 - alpha / 2);
  return s;
}

}  // namespace ddpsim
