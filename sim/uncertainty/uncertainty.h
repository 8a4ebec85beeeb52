// Bands and influences of one scenario's prediction over its defaulted inputs (ledger.h).
// Draws: n points of a seeded Latin hypercube (latin_hypercube.h), each a copy of the typed
// scenario with every `default` input set to its sampled value in [low, high] (a choice input to
// low or high, half and half); measured and stated inputs stay as they are. Each draw is then
// combined with the model's own error measured on the validation cases for the scenario's
// mechanism class (sim/validation/discrepancy.h): bands are the 10th, 50th and 90th percentiles
// of every draw x every quantile of that error, and the headline is their 50th, so it lies
// inside its band, and a scenario with nothing left to draw still has one. Influences
// are one-at-a-time runs of each default at its low and at its high end, the others nominal (a
// tornado), ordered by how far apart their samples/s lie.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/ledger/ledger.h"
#include "sim/results/band.h"
#include "sim/results/result.h"
#include "sim/validation/discrepancy.h"
#include "sim/validation/error_stats.h"  // percentile()

namespace ddpsim {

Band band_of(const std::vector<double>& values);

struct Influence {
  const AssumptionRow* row = nullptr;
  double low = 0, high = 0;            // the input's two ends
  double rate_low = 0, rate_high = 0;  // samples/s with the input at each end
};

struct UncertaintyOptions {
  int samples = 32;
  uint64_t seed = 1;
  int jobs = 1;
  bool influences = true;  // also run the tornado (2 runs per default input)
  std::string progress;    // label of a progress line on stderr ("" = none)
  // The model error to combine with the draws (estimate_discrepancy for the scenario's class);
  // unknown (no offsets): bands of the draws alone.
  Discrepancy model_error;
  // The nominal run's samples/s and step time: where the draws are anchored when the model
  // error was borrowed from other classes (anchored_draws; 0 = not anchored). use_model_error
  // sets them with the model error.
  double nominal_rate = 0, nominal_time = 0;
};

struct UncertaintyReport {
  int samples = 0;
  uint64_t seed = 0;
  int defaulted = 0;  // inputs sampled
  // Draws x model error; exposed_comm_share over the draws alone (the error is measured on
  // throughput and times, not on how much of the step is exposed).
  Band samples_per_second, iteration_time, exposed_comm_share;
  Band draws_samples_per_second;  // the draws alone: what the sourced ranges say
  Discrepancy model_error;
  std::vector<double> draw_rates;  // samples/s of each draw, in draw order
  std::vector<double> draw_times;  // iteration time of each draw
  std::vector<Influence> influences;
};

// Sets `options`' model error for a scenario whose nominal run is `nominal` (its class's
// residuals from `rows`, the repository's discrepancy.csv) and the nominal figures its draws are
// anchored at when that error is borrowed.
void use_model_error(UncertaintyOptions* options, const Scenario& scenario,
                     const SimulationResult& nominal, const std::vector<ResidualRow>& rows);

// The summary's lines on the model error: its class, what it was measured on and, for a
// scenario unlike the validated cases, why ("" for an unknown error).
std::string format_model_error(const Discrepancy& d);

// The design every uncertainty run of `samples` draws with `seed` uses.
std::vector<std::vector<double>> uncertainty_design(int samples, uint64_t seed);

UncertaintyReport assess_uncertainty(const Scenario& scenario,
                                     const std::vector<LedgerEntry>& ledger,
                                     const UncertaintyOptions& options);

// `result.uncertainty` of results.json.
nlohmann::json uncertainty_to_json(const UncertaintyReport& report);
// `result.headline`: the figures the summary leads with (medians of draws x model error) and
// `result.nominal`: the nominal run's, which result's breakdown, links and trace describe.
nlohmann::json headline_to_json(const UncertaintyReport& report);
nlohmann::json nominal_to_json(const SimulationResult& nominal);

// The lines the summary prints under the headline figures: the inputs that move throughput most
// (at most `top`), each with its range, the samples/s at its ends and the measurement to make.
std::string format_influences(const UncertaintyReport& report, const std::string& sample_unit,
                              size_t top = 3);

// The summary's one line on assumptions: the defaults that matter most (with a report, those
// that move throughput most; without, the defaulted inputs in table order), at most three.
std::string assumptions_line(const std::vector<LedgerEntry>& ledger,
                             const UncertaintyReport* report);

// Spearman's rank correlation of x and y (tied values share their mean rank); 0 when either is
// constant. compare --uncertainty names the input that decides a pair with it.
double rank_correlation(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace ddpsim
