#include "sim/results/llm_units.h"

#include <fmt/format.h>

#include "sim/text/units.h"

namespace ddpsim {

double flops_utilisation(double flops_per_token, double tokens_per_second, int gpus, double peak) {
  if (!(flops_per_token > 0) || !(tokens_per_second > 0) || gpus <= 0 || !(peak > 0)) return 0;
  return flops_per_token * tokens_per_second / (gpus * peak);
}

double SimulationResult::mfu() const {
  return flops_utilisation(model_flops_per_token, tokens_per_second(), gpus, peak_flops_per_gpu);
}

double SimulationResult::hfu() const {
  return flops_utilisation(hardware_flops_per_token, tokens_per_second(), gpus, peak_flops_per_gpu);
}

std::string llm_summary_lines(const Scenario& s, const SimulationResult& r) {
  if (!(r.tokens_per_sample > 0)) return "";
  std::string out = fmt::format(
      "tokens          {} tokens/s, {} tokens/s per GPU ({} tokens per sample)\n",
      units::format_rate(r.tokens_per_second()), units::format_rate(r.tokens_per_second_per_gpu()),
      units::format_rate(r.tokens_per_sample));
  const bool recomputes = s.training.activation_checkpointing;
  out += fmt::format(
      "MFU             {:.1f} % of {} {} peak per GPU (6N + 12LHQT = {:.3g} GFLOP/token, PaLM "
      "app. B); HFU {:.1f} % ({})\n",
      100 * r.mfu(), units::format_flops(r.peak_flops_per_gpu),
      precision_name(s.training.precision), r.model_flops_per_token / 1e9, 100 * r.hfu(),
      recomputes ? fmt::format("with the recomputed forward: {:.3g} GFLOP/token",
                               r.hardware_flops_per_token / 1e9)
                 : std::string("no recomputation: the same FLOPs"));
  return out;
}

}  // namespace ddpsim
