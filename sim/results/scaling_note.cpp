#include "sim/results/scaling_note.h"

#include <fmt/format.h>

#include "sim/util/units.h"

namespace ddpsim {

std::string superlinear_note(const Scenario& scenario, const SimulationResult& many,
                             const SimulationResult& one) {
  if (!(many.scaling_efficiency > 1 + 1e-9)) return "";
  const Breakdown& a = many.breakdown;
  const Breakdown& b = one.breakdown;
  const Sharding sharding = scenario.sync.sharding.strategy;
  struct Part {
    const char* name;
    double here, alone;
    std::string why;
  };
  const Part parts[] = {
      {"optimizer update", a.optimizer, b.optimizer,
       sharding != Sharding::kNone
           ? "sync.sharding divides the optimizer state and its update over the GPUs"
           : "the update runs on a smaller share here"},
      {"data wait", a.data_wait, b.data_wait, "the lone GPU's input pipeline fed it more slowly"},
      {"forward", a.forward, b.forward, "each GPU computes less here"},
      {"backward", a.backward, b.backward, "each GPU computes less here"},
  };
  std::string reasons;
  for (const Part& p : parts) {
    if (!(p.here < p.alone * (1 - 1e-9))) continue;
    reasons += fmt::format("{}{} {} per step on each GPU against {} alone ({})",
                           reasons.empty() ? "" : "; ", p.name, units::format_duration(p.here),
                           units::format_duration(p.alone), p.why);
  }
  if (reasons.empty())
    reasons = fmt::format("the step takes {} here against {} alone",
                          units::format_duration(many.iteration_time),
                          units::format_duration(one.iteration_time));
  return fmt::format("scaling efficiency {:.1f} % is above 100 %: {}",
                     100 * many.scaling_efficiency, reasons);
}

}  // namespace ddpsim
