// SimulationResult <-> JSON. Used for results.json and to carry results out of the forked
// simulation process. Numbers are written with full precision; the output is deterministic.
#pragma once

#include <nlohmann/json.hpp>

#include "sim/results/result.h"

namespace ddpsim {

nlohmann::json result_to_json(const SimulationResult& result);
SimulationResult result_from_json(const nlohmann::json& json);

// A slice's args: its numbers (whole ones as integers, as Perfetto and HTA want them) and texts.
nlohmann::json trace_args_json(const TraceEvent& event);

// Chrome trace event format (opens in Perfetto / chrome://tracing).
nlohmann::json trace_to_chrome_json(const SimulationResult& result);

}  // namespace ddpsim
