// Piecewise alpha-beta fit of a collective's time against message size: t(S) = alpha + beta * S
// on each size range. Each range is a weighted least-squares fit that minimises the sum of
// squared *relative* errors ((alpha + beta*S - t) / t)^2, so 8 B and 1 GiB points count alike;
// alpha and beta are kept >= 0. The ranges are chosen, not fixed: the fewest contiguous ranges
// (each with at least `min_points` samples) whose every point is within `tolerance`, ties broken
// by the smaller sum of squared relative errors. When no split meets the tolerance with at most
// `max_ranges` ranges, the split with the smallest sum of squared errors is returned.
// NCCL switches protocol (LL, LL128, Simple) and algorithm with size, so a single line is wrong
// at one end or the other; the chosen breakpoints show where the switches happened.
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
  // Ranges cover [0, inf): min_bytes of the first is 0, max_bytes of the last is +inf, and a
  // boundary between two ranges is the geometric mean of the sizes on either side of it.
  std::vector<AlphaBetaPoint> ranges;
  std::vector<double> rel_error;  // per input point: (fitted - measured) / measured
  double max_abs_rel_error = 0;
};

// bytes: strictly increasing and > 0; seconds: > 0, same length, at least 2 points.
// Throws std::invalid_argument otherwise (callers validate user input first).
AlphaBetaFit fit_alpha_beta(const std::vector<double>& bytes, const std::vector<double>& seconds,
                            const AlphaBetaFitOptions& options = {});

// The weighted least-squares line through points [first, last) alone (min/max_bytes unset).
AlphaBetaPoint fit_alpha_beta_line(const std::vector<double>& bytes,
                                   const std::vector<double>& seconds, size_t first, size_t last);

}  // namespace ddpsim
