// The model's own error, measured (Kennedy and O'Hagan 2001: measurement = simulator(inputs) +
// discrepancy). Each public validation case contributes one residual row: r = log(measured /
// the median of its uncertainty draws), oriented so that r > 0 means reality was faster (rates
// as they are, times inverted), beside the spread of its draws. A band then combines a
// scenario's draws (the sourced input ranges) with the residuals of its mechanism class
// (mechanism_class.h) so that nothing is counted twice: the residuals' spread already holds the
// draws' spread, so only what the draws do not explain is added (docs/model-error.md).
//
// Rules, fixed before any residual was seen (the last two added after the public cases showed
// that borrowed residuals carried other classes' draws, docs/model-error.md):
// - Pooling: the residuals of the scenario's class (binds x sync) when it has at least
//   kMinClassCases rows, else those of its `binds`, else every row.
// - Borrowed residuals are errors at documented values: outside its own class a row contributes
//   log(measured / its nominal run), and the scenario's draws are moved so that their median is
//   its own nominal run (anchored_draws). Within a class the draws' offset from the nominal comes
//   from the same ledger rows and stays in the residual; across classes it does not transfer.
// - A class with fewer than kMinClassCases rows is unlike what was checked: it says so and its
//   discrepancy is widened kDistanceInflation times, as for the distance below.
// - Out of sample: estimate(..., exclude_source) leaves a whole source out, so no validation case
//   is banded with its own source's residuals.
// - Few cases: the spread is inflated by t(0.9, n-1) / z(0.9) x sqrt(1 + 1/n), the width of a
//   prediction interval from n residuals against a known distribution.
// - Distance: a scenario whose transport, synchronisation, GPU generation or intra-node layout no
//   row has, or over 4x the GPUs of the largest row of its class, takes every row's residuals
//   with twice their spread, and says why.
// Pure: rows come from `ddpsim validate --uncertainty` (discrepancy.csv) through a parser that
// takes text, so the file is read at the edge.
#pragma once

#include <string>
#include <vector>

#include "sim/results/band.h"
#include "sim/validation/mechanism_class.h"

namespace ddpsim {

struct ResidualRow {
  std::string id, source;
  MechanismClass mechanism;
  SupportFeatures support;
  double measured = 0, median = 0, nominal = 0;  // in the case's unit
  double residual = 0;     // log(measured / median), rate-oriented
  double nominal_residual = 0;  // log(measured / nominal), rate-oriented
  double draw_spread = 0;  // (log p90 - log p10) / (2 z(0.9)) of the draws, rate-oriented
};

constexpr int kMinClassCases = 10;
constexpr double kDistanceInflation = 2.0;
constexpr double kDistanceJobRatio = 4.0;

// The model error that bands one prediction: offsets in log space (sorted, equally weighted
// quantile points of the scaled residual distribution) to add to each draw's log.
struct Discrepancy {
  MechanismClass mechanism;
  std::string pooled;  // class | binds | all: which residuals were used
  int cases = 0;       // how many
  double shift = 0;    // median residual (the draws' median is corrected by it)
  double spread = 0;   // robust sd of the residuals used
  double scale = 0;    // the share of that spread the discrepancy adds beyond the draws, inflated
  // The smallest gap between two predictions of this class the model can call: the median
  // |residual - shift| of the residuals used (log; 0 when unknown).
  double resolution = 0;
  std::vector<double> offsets;
  std::vector<std::string> distance;  // why the scenario is unlike the validated cases
  bool known() const { return !offsets.empty(); }
  // The residuals were borrowed from other classes (pooled binds or all): they are errors at
  // documented values, and the draws are anchored at the scenario's nominal run.
  bool borrowed() const { return known() && pooled != "class"; }
};

Discrepancy estimate_discrepancy(const std::vector<ResidualRow>& rows,
                                 const MechanismClass& mechanism, const SupportFeatures& support,
                                 const std::string& exclude_source = "");

// The draws a band or a verdict combines with `d`: `values` as they are when the residuals are
// the class's own; scaled so that their median is `nominal` (the same figure of the nominal
// run) when they were borrowed. A `nominal` of 0 leaves them as they are.
std::vector<double> anchored_draws(const std::vector<double>& values, const Discrepancy& d,
                                   double nominal);

// p10, p50, p90 of every draw x every offset. `values` are the draws of one figure; `rate`
// false for a time (a faster reality shortens it).
Band combined_band(const std::vector<double>& values, const Discrepancy& d, bool rate = true);
// The same combined values, sorted (for shares and intervals between two strategies).
std::vector<double> combined_values(const std::vector<double>& values, const Discrepancy& d,
                                    bool rate = true);

// The file: a header line, then one row per case, fixed formatting (byte for byte reproducible).
std::string format_residual_rows(const std::vector<ResidualRow>& rows);
// Parses that text; throws InputError at file:line:column naming the bad field.
std::vector<ResidualRow> parse_residual_rows(const std::string& text, const std::string& file);

// The robust standard deviation of values: (p90 - p10) / (2 z(0.9)).
double robust_spread(const std::vector<double>& values);
constexpr double kZ90 = 1.2815515655446004;

}  // namespace ddpsim
