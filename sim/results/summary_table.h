// The human-readable summary `ddpsim simulate` prints: scenario in one paragraph, then one line
// per figure (throughput, iteration breakdown, communication, bottleneck, bytes per link class).
#pragma once

#include <string>
#include <vector>

#include "sim/model/layer.h"
#include "sim/results/result.h"
#include "sim/scenario/scenario.h"
#include "sim/uncertainty/ledger.h"

namespace ddpsim {

// The headline figures of `simulate --uncertainty` when `present`: the median and p10-p90 of the
// draws combined with the model's error (sim/uncertainty/uncertainty.h). The headline is the
// median; the nominal run (every input at its documented value) is printed beside it as what
// the breakdown, links and trace describe.
struct SummaryBands {
  bool present = false;
  int draws = 0;
  double rate_p10 = 0, rate_p50 = 0, rate_p90 = 0;
  double time_p10 = 0, time_p50 = 0, time_p90 = 0;
  double exposed_p10 = 0, exposed_p90 = 0;  // shares of the iteration
};

// `ledger` (build_ledger) says where the compute efficiencies on the `compute` line come from.
std::string format_summary(const Scenario& scenario, const Model& model,
                           const SimulationResult& result, const std::vector<LedgerEntry>& ledger,
                           const SummaryBands& bands = {});

}  // namespace ddpsim
