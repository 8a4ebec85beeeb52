#include "sim/results/scaling_note.h"

#include <fmt/format.h>

#include "sim/text/units.h"

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

std::string above_linear_footnote() {
  return fmt::format(
      "{} above 100 %: scaling efficiency compares with one GPU running the same per-GPU batch "
      "and the whole optimizer update; sync.sharding divides the update (and its state) over "
      "the GPUs, so each GPU's step is shorter than the lone GPU's",
      kAboveLinearMark);
}

std::string starved_baseline_footnote() {
  return fmt::format(
      "{} against a loader-starved baseline: the lone GPU waits for data too, so the efficiency "
      "compares two data-loading-bound runs, not the GPUs (`ddpsim dataload --find cores`)",
      kStarvedBaselineMark);
}

std::string starved_baseline_line(const SimulationResult& r) {
  if (r.single_gpu_bottleneck != "data-loading-bound") return "";
  return "scaling note    the 1-GPU baseline is data-loading-bound too: the scaling efficiency "
         "compares two loader-starved runs, not the GPUs (`ddpsim dataload --find cores` says "
         "what feeds them)\n";
}

}  // namespace ddpsim
