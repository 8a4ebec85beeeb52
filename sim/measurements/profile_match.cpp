#include "sim/measurements/profile_match.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <set>

#include "sim/scenario/gpu_aliases.h"

namespace ddpsim {
namespace {

std::string lower(const std::string& s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

// The exporter writes "CPU: <model> (N threads)" and a CPU torch.profiler import
// "CPU (torch.profiler trace)".
bool is_cpu(const std::string& device) { return lower(device).rfind("cpu", 0) == 0; }

std::string names(const std::vector<Precision>& precisions) {
  std::string out;
  for (Precision p : precisions) out += (out.empty() ? "" : ", ") + std::string(precision_name(p));
  return out;
}

bool has_run_at(const CalibrationProfile& profile, Precision p) {
  return std::any_of(profile.runs.begin(), profile.runs.end(),
                     [&](const ModelRun& r) { return r.precision == p; });
}

}  // namespace

std::vector<Precision> profile_precisions(const CalibrationProfile& profile) {
  std::set<Precision> seen;
  for (const ModelRun& run : profile.runs) seen.insert(run.precision);
  for (const GemmCeiling& g : profile.ceilings.gemm) seen.insert(g.precision);
  return {seen.begin(), seen.end()};
}

Precision measured_precision(Precision precision) {
  return precision == Precision::kFp8 ? Precision::kBf16 : precision;
}

std::string profile_device_mismatch(const CalibrationProfile& profile, const GpuSpec& gpu) {
  const std::string& device = profile.device.name;
  const std::string file = profile.source.empty() ? "the profile" : profile.source;
  if (device.empty())
    return fmt::format("{} does not record its device: it cannot be checked against {}", file,
                       gpu.name);
  if (is_cpu(device))
    return fmt::format(
        "{} was measured on a CPU ({}) and drives {}: CPU layer times and rates "
        "do not describe a GPU",
        file, device, gpu.name);
  const std::string measured = gpu_family(device), used = gpu_family(gpu.name);
  if (measured.empty() || used.empty())
    return fmt::format(
        "{} was measured on {}, which cannot be matched to {}: its times may "
        "describe another GPU",
        file, device, gpu.name);
  if (measured != used)
    return fmt::format("{} was measured on {} and drives {}: its times describe another GPU", file,
                       device, gpu.name);
  return "";
}

std::string profile_precision_missing(const CalibrationProfile& profile, Precision precision) {
  const std::vector<Precision> has = profile_precisions(profile);
  const Precision needed = measured_precision(precision);
  if (has.empty() || std::find(has.begin(), has.end(), needed) != has.end()) return "";
  const std::string file = profile.source.empty() ? "the profile" : profile.source;
  const std::string via = needed != precision
                              ? fmt::format(" ({} runs on the {} measurements)",
                                            precision_name(precision), precision_name(needed))
                              : std::string();
  return fmt::format(
      "{} has no measurements at {}{}, the scenario's training.precision; it has {}: measure at "
      "{} (ddpsim calibrate --precision {}, or ddpsim_torch.py export --time --precision {}), "
      "or train at a precision it has",
      file, precision_name(needed), via, names(has), precision_name(needed), precision_name(needed),
      precision_name(needed));
}

std::string profile_mismatch(const CalibrationProfile& profile, const GpuSpec& gpu,
                             Precision precision) {
  std::string out = profile_device_mismatch(profile, gpu);
  const Precision needed = measured_precision(precision);
  // Has the precision (a GEMM ceiling) but timed its layers at others only: the per-kind
  // efficiencies applied to the ceiling come from another precision.
  if (!profile.runs.empty() && !has_run_at(profile, needed)) {
    std::vector<Precision> runs;
    for (Precision p : profile_precisions(profile))
      if (has_run_at(profile, p)) runs.push_back(p);
    const std::string file = profile.source.empty() ? "the profile" : profile.source;
    out += (out.empty() ? "" : "; ") +
           fmt::format(
               "{} timed its layers at {} only, the scenario trains at {}: its layer "
               "efficiencies are applied to the {} GEMM ceiling",
               file, names(runs), precision_name(precision), precision_name(needed));
  }
  return out;
}

}  // namespace ddpsim
