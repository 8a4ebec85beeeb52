// The human-readable summary `ddpsim simulate` prints: scenario in one paragraph, then one line
// per figure (throughput, iteration breakdown, communication, bottleneck, bytes per link class).
#pragma once

#include <string>

#include "sim/model/layer.h"
#include "sim/results/result.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

std::string format_summary(const Scenario& scenario, const Model& model,
                           const SimulationResult& result);

}  // namespace ddpsim
