// Piecewise alpha-beta fit of a collective's time against message size: t(S) = alpha + beta * S
// on each size range, continuous at the boundaries and non-decreasing in S (a table that jumped
// at a boundary made a 1 MiB bucket cost up to a quarter more or less than its neighbours).
//
// The curve is t(S) = a + sum_i beta_i * |[k_i, k_i+1) n [0, S)|: a >= 0 the latency at S = 0,
// beta_i >= 0 the slope of range i, k_0 = 0 < k_1 < ... the boundaries. For given boundaries the
// weighted least squares on *relative* errors ((t(S) - t)/t)^2 is a non-negative least-squares
// problem (Lawson-Hanson), so continuity and monotonicity hold by construction. Each boundary lies
// between two measured sizes, where the two neighbouring lines meet best (golden-section search).
// Which measured points each range holds is chosen as before: the fewest contiguous ranges (each
// with at least `min_points` samples) whose every point is within `tolerance`, ties broken by the
// smaller sum of squared relative errors; when no split with at most `max_ranges` ranges meets
// the tolerance, the one with the smallest sum of squared errors.
// NCCL switches protocol (LL, LL128, Simple) and algorithm with size, so a single line is wrong
// at one end or the other; the boundaries show where the switches happened.
#pragma once

#include <vector>

#include "sim/scenario/scenario.h"

namespace ddpsim {

struct AlphaBetaFitOptions {
  double tolerance = 0.03;  // max |relative error| per point the split aims for
  int min_points = 3;       // per range, so a range is never an exact two-point interpolation
  int max_ranges = 6;
};

struct AlphaBetaFit {
  // Ranges cover [0, inf): min_bytes of the first is 0, max_bytes of the last is +inf. alpha of
  // the first range is >= 0; a later range's alpha is the intercept of its line and may be
  // negative, its time at min_bytes never is.
  std::vector<AlphaBetaPoint> ranges;
  std::vector<double> rel_error;  // per input point: (fitted - measured) / measured
  double max_abs_rel_error = 0;
};

// bytes: strictly increasing and > 0; seconds: > 0, same length, at least 2 points.
// Throws std::invalid_argument otherwise (callers validate user input first).
AlphaBetaFit fit_alpha_beta(const std::vector<double>& bytes, const std::vector<double>& seconds,
                            const AlphaBetaFitOptions& options = {});

// The weighted least-squares line through points [first, last) alone, alpha, beta >= 0
// (min/max_bytes unset).
AlphaBetaPoint fit_alpha_beta_line(const std::vector<double>& bytes,
                                   const std::vector<double>& seconds, size_t first, size_t last);

// Non-negative least squares: argmin ||A x - b|| subject to x >= 0 (Lawson and Hanson, "Solving
// Least Squares Problems", 1974, ch. 23). Exposed for its tests.
std::vector<double> non_negative_least_squares(const std::vector<std::vector<double>>& a,
                                               const std::vector<double>& b);

}  // namespace ddpsim
