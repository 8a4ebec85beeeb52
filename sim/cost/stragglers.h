// Per-GPU compute slowdown factors (>= 1), drawn deterministically from the scenario seed with a
// counter-based generator (splitmix64), so results do not depend on the standard library's
// distribution implementations or on the order in which actors ask.
#pragma once

#include <cstdint>

#include "sim/scenario/scenario.h"

namespace ddpsim {

// Factor for `rank` at `step` (step is ignored unless spec.per_iteration).
double straggler_factor(const StragglerSpec& spec, uint64_t seed, int rank, int step);

// Uniform double in [0, 1) from (seed, a, b, c); exposed for tests.
double seeded_uniform(uint64_t seed, uint64_t a, uint64_t b, uint64_t c);

}  // namespace ddpsim
