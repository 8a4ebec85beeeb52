// Order statistics of the random straggler factors (sim/cost/stragglers.h), for the symmetric
// scope (sim/cost/symmetry.h): a synchronous step waits for the slowest of the cluster's N GPUs,
// so a slice that stands for N GPUs runs one GPU at the expected slowest of N draws. Pure: no
// SimGrid.
//
// The distributions are the ones straggler_factor draws from:
//   uniform:   1 + (max - 1) U, U uniform in [0, 1);
//   lognormal: min(exp(sigma |z|), kMaxStragglerFactor), z standard normal, so for
//              1 <= x < kMaxStragglerFactor, F(x) = erf(ln x / (sigma sqrt 2)), and the clamp is an
//              atom at kMaxStragglerFactor.
// Fixed and none have no randomness: the moments are those of 1 (none) and are not defined for
// fixed (throws std::invalid_argument).
#pragma once

#include "sim/scenario/scenario.h"

namespace ddpsim {

struct FactorMoments {
  double mean = 1;
  double sd = 0;
};

// Mean and standard deviation of the largest of n independent draws (n >= 1; n = 1 is one draw).
// Uniform in closed form: 1 + (max - 1) n/(n + 1), sd (max - 1) sqrt(n / ((n + 1)^2 (n + 2))).
// Lognormal: E[M^k] = 1 + integral over [1, clamp) of k x^(k-1) (1 - F(x)^n) dx, by composite
// Simpson in t = ln x / sigma, where 1 - F^n = -expm1(n log1p(-erfc(t / sqrt 2))) keeps its
// digits at both ends (relative error below 1e-9 for n up to 2^20).
FactorMoments slowest_of(const StragglerSpec& spec, double n);

// The factors a slice of `slice_gpus` GPUs runs to stand for `cluster_gpus` drawn ones: GPU 0
// gets the expected slowest of cluster_gpus draws (it gates every synchronous step), every
// other GPU the value that makes the slice's mean factor the expected mean of one draw,
// (slice E[f] - E[max]) / (slice - 1), so per-GPU averages (forward, backward, waiting for the
// slowest) are the full run's in expectation. Returns the second value; *slowest the first.
double folded_straggler_factors(const StragglerSpec& spec, int cluster_gpus, int slice_gpus,
                                double* slowest);

}  // namespace ddpsim
