#include "sim/cost/straggler_order.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ddpsim {
namespace {

// P(max of n draws > x) for the lognormal factor at x = exp(sigma t), t >= 0, below the clamp.
double exceeds(double t, double n) {
  const double tail = std::erfc(t / std::sqrt(2.0));  // P(|z| > t)
  if (tail >= 1) return 1;
  return -std::expm1(n * std::log1p(-tail));
}

// E[M^k] for the clamped lognormal, k = 1 or 2. In t = ln x / sigma the integrand is
// k sigma exp(k sigma t) P(M > e^(sigma t)), smooth, between 1 and 0 over a width ~1 around
// sqrt(2 ln n); beyond t = 12 the tail is below n * 1e-32 and is dropped.
double lognormal_raw_moment(double sigma, double n, int k) {
  const double top = std::min(std::log(kMaxStragglerFactor) / sigma, 12.0);
  constexpr int kPanels = 20000;  // even; step < 6e-4
  const double h = top / kPanels;
  auto f = [&](double t) { return k * sigma * std::exp(k * sigma * t) * exceeds(t, n); };
  double sum = f(0) + f(top);
  for (int i = 1; i < kPanels; ++i) sum += (i % 2 ? 4 : 2) * f(i * h);
  return 1 + sum * h / 3;
}

}  // namespace

FactorMoments slowest_of(const StragglerSpec& spec, double n) {
  if (!(n >= 1)) throw std::invalid_argument("slowest_of: n must be >= 1");
  switch (spec.kind) {
    case StragglerKind::kNone:
      return {1, 0};
    case StragglerKind::kFixed:
      throw std::invalid_argument("slowest_of: fixed stragglers are not drawn");
    case StragglerKind::kUniform: {
      // The largest of n uniforms is Beta(n, 1).
      const double span = spec.max - 1;
      return {1 + span * n / (n + 1), span * std::sqrt(n / ((n + 1) * (n + 1) * (n + 2)))};
    }
    case StragglerKind::kLognormal: {
      if (spec.sigma <= 0) return {1, 0};
      const double m1 = lognormal_raw_moment(spec.sigma, n, 1);
      const double m2 = lognormal_raw_moment(spec.sigma, n, 2);
      return {m1, std::sqrt(std::max(m2 - m1 * m1, 0.0))};
    }
  }
  return {1, 0};
}

double folded_straggler_factors(const StragglerSpec& spec, int cluster_gpus, int slice_gpus,
                                double* slowest) {
  if (slice_gpus < 2 || cluster_gpus < slice_gpus)
    throw std::invalid_argument("folded_straggler_factors: need 2 <= slice <= cluster GPUs");
  *slowest = slowest_of(spec, cluster_gpus).mean;
  const double mean = slowest_of(spec, 1).mean;
  return (slice_gpus * mean - *slowest) / (slice_gpus - 1);
}

}  // namespace ddpsim
