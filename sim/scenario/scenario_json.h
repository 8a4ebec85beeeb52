// The resolved scenario as JSON, echoed into results.json so a result says exactly what was
// simulated: every field, defaults included, enums by their YAML names, quantities in SI base
// units with the unit in the key (_bytes, _bytes_per_s, _s, _flop_per_s).
#pragma once

#include <nlohmann/json.hpp>

#include "sim/scenario/scenario.h"

namespace ddpsim {

nlohmann::json scenario_to_json(const Scenario& scenario);

}  // namespace ddpsim
