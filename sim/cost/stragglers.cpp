#include "sim/cost/stragglers.h"

#include <algorithm>
#include <cmath>

namespace ddpsim {
namespace {

uint64_t splitmix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

double seeded_uniform(uint64_t seed, uint64_t a, uint64_t b, uint64_t c) {
  uint64_t h = splitmix64(seed);
  h = splitmix64(h ^ a);
  h = splitmix64(h ^ (b * 0x100000001b3ULL));
  h = splitmix64(h ^ (c * 0xc2b2ae3d27d4eb4fULL));
  return static_cast<double>(h >> 11) * 0x1.0p-53;
}

double straggler_factor(const StragglerSpec& spec, uint64_t seed, int rank, int step) {
  const uint64_t s = spec.per_iteration ? static_cast<uint64_t>(step) + 1 : 0;
  switch (spec.kind) {
    case StragglerKind::kNone:
      return 1.0;
    case StragglerKind::kFixed: {
      auto it = spec.fixed.find(rank);
      return it == spec.fixed.end() ? 1.0 : it->second;
    }
    case StragglerKind::kUniform:
      return 1.0 + (spec.max - 1.0) * seeded_uniform(seed, rank, s, 1);
    case StragglerKind::kLognormal: {
      // Box-Muller; slowdowns only: exp(sigma * |z|) has median exp(0.674 sigma).
      const double u1 = std::max(seeded_uniform(seed, rank, s, 2), 1e-300);
      const double u2 = seeded_uniform(seed, rank, s, 3);
      const double z = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
      return std::min(std::exp(spec.sigma * std::fabs(z)), kMaxStragglerFactor);
    }
  }
  return 1.0;
}

}  // namespace ddpsim
