// The `simulation:` section: how much of the cluster the simulator runs (scope: auto, full or
// symmetric). Whether symmetric applies to the scenario is decided later (sim/cost/symmetry.h),
// where the error of a forced symmetric scope points back at this key.
#include "sim/input/scenario_sections.h"

namespace ddpsim {

void parse_simulation(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  SimulationSpec& s = scenario->simulation;
  YamlSection simulation(value, {"scope"}, context);
  s.scope_where = simulation.where();
  if (auto v = simulation.get("scope")) {
    s.scope = as_enum<SimulationScope>(*v);
    s.scope_where = v->where;
  }
}

}  // namespace ddpsim
