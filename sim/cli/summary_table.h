// The human-readable summary `ddpsim simulate` prints: scenario in one paragraph, then one line
// per figure (throughput, iteration breakdown, communication, bottleneck, bytes per link class).
#pragma once

#include <string>
#include <vector>

#include "sim/model/layer.h"
#include "sim/results/band.h"
#include "sim/results/result.h"
#include "sim/scenario/scenario.h"
#include "sim/ledger/ledger.h"

namespace ddpsim {

// `ledger` (build_ledger) says where the compute efficiencies on the `compute` line come from.
// `bands` (simulate --uncertainty; null without draws): the p10-p50-p90 of the draws combined
// with the model's error (sim/uncertainty/uncertainty.h). The headline is their median; the
// nominal run (every input at its documented value) is printed beside it as what the breakdown,
// links and trace describe.
std::string format_summary(const Scenario& scenario, const Model& model,
                           const SimulationResult& result, const std::vector<LedgerEntry>& ledger,
                           const ResultBands* bands = nullptr);

}  // namespace ddpsim
