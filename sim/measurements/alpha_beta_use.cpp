#include "sim/measurements/alpha_beta_use.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/scenario/gpu_aliases.h"
#include "sim/text/units.h"

namespace ddpsim {

SizeSpan measured_span(const CollectiveSweep& sweep) {
  if (!sweep.samples.empty()) return {sweep.samples.front().bytes, sweep.samples.back().bytes};
  if (sweep.fit.empty()) return {};
  return {sweep.fit.front().min_bytes, sweep.fit.back().max_bytes};
}

std::vector<std::string> check_alpha_beta_use(const CollectiveSweep& sweep,
                                              const ClusterSpec& cluster,
                                              const std::vector<double>& bucket_bytes,
                                              const std::string& table_path,
                                              const SourceLocation& where) {
  const SizeSpan span = measured_span(sweep);
  double lo = 0, hi = 0;
  for (double b : bucket_bytes) {
    if (!(b > 0)) continue;
    lo = lo > 0 ? std::min(lo, b) : b;
    hi = std::max(hi, b);
  }
  if (hi > 0 && (lo < span.min_bytes || hi > span.max_bytes)) {
    const bool too_large = hi > span.max_bytes;
    throw InputError(
        where,
        fmt::format(
            "the all_reduce table in {} ({}) was measured from {} to {}, but this "
            "scenario reduces buckets of {} to {}; a fit is not extrapolated: measure "
            "{} sizes (nccl-tests {} {}) or drop sync.alpha_beta to use the link model",
            table_path, algorithm_name(sweep.algorithm), units::format_bytes(span.min_bytes),
            std::isinf(span.max_bytes) ? "any size" : units::format_bytes(span.max_bytes),
            units::format_bytes(lo), units::format_bytes(hi), too_large ? "larger" : "smaller",
            too_large ? "-e" : "-b", units::format_bytes(too_large ? hi : lo)));
  }

  std::vector<std::string> warnings;
  const std::string name = "the all_reduce table " + table_path;
  if (sweep.gpus <= 0 && sweep.device.empty()) {
    warnings.push_back(name +
                       " does not record where it was measured (GPUs, nodes, GPU type): it "
                       "cannot be checked against this cluster");
    return warnings;
  }
  const int gpus = cluster.total_gpus();
  if (sweep.gpus > 0 && (sweep.gpus != gpus || (sweep.nodes > 0 && sweep.nodes != cluster.nodes)))
    warnings.push_back(fmt::format(
        "{} was measured on {} GPUs ({} node{}) and is used for {} GPUs ({} node{}): measured "
        "times do not scale; to predict another size, fit the links instead (ddpsim calibrate "
        "--fit-platform)",
        name, sweep.gpus, sweep.nodes, sweep.nodes == 1 ? "" : "s", gpus, cluster.nodes,
        cluster.nodes == 1 ? "" : "s"));
  const std::string measured = gpu_family(sweep.device), used = gpu_family(cluster.gpu.name);
  if (sweep.device.empty())
    warnings.push_back(name + " does not record its GPU type: it cannot be checked against " +
                       cluster.gpu.name);
  else if (measured.empty() || used.empty() ? sweep.device != cluster.gpu.name : measured != used)
    warnings.push_back(
        fmt::format("{} was measured on {} and is used for {}: its times describe "
                    "another GPU",
                    name, sweep.device, cluster.gpu.name));
  return warnings;
}

}  // namespace ddpsim
