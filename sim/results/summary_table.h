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

// p10 and p90 of the headline figures over uncertainty draws (`simulate --uncertainty`), printed
// beside them when `present`.
struct SummaryBands {
  bool present = false;
  double rate_p10 = 0, rate_p90 = 0;
  double time_p10 = 0, time_p90 = 0;
  double exposed_p10 = 0, exposed_p90 = 0;  // shares of the iteration
};

// `ledger` (build_ledger) says where the compute efficiencies on the `compute` line come from.
std::string format_summary(const Scenario& scenario, const Model& model,
                           const SimulationResult& result, const std::vector<LedgerEntry>& ledger,
                           const SummaryBands& bands = {});

}  // namespace ddpsim
