// The expected largest of n independent standard normal draws, z(n) = E[max(Z_1..Z_n)]: how
// far, in standard deviations, the slowest of n GPUs whose speeds spread normally lies beyond one
// GPU drawn from the same spread (the one a single-GPU calibration timed). z(1) = 0,
// z(2) = 1/sqrt(pi) = 0.5642, z(8) = 1.4236, z(100) = 2.5076; increasing, and below
// sqrt(2 ln n). Pure: no SimGrid.
#pragma once

namespace ddpsim {

// n >= 1 (a GPU count, fractional allowed); valid to n = 1e9, so every supported cluster (at most
// 2^20 GPUs) is inside. Throws std::invalid_argument outside [1, 1e9] or on NaN.
// Exact up to the quadrature: absolute error below 1e-12 (composite Simpson, see the .cpp).
double expected_normal_maximum(double n);

}  // namespace ddpsim
