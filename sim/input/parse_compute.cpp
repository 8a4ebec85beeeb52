// The `compute:` section: how long forward and backward take on one GPU.
#include <memory>
#include <utility>

#include "sim/input/scenario_sections.h"
#include "sim/measurements/profile_match.h"
#include "sim/measurements/profile_yaml.h"

namespace ddpsim {

void parse_compute(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  ComputeSpec& c = scenario->compute;
  YamlSection compute(value,
                      {"mode", "efficiency", "memory_efficiency", "step_time", "samples_per_second",
                       "profile", "overlap_slowdown", "framework_overhead"},
                      context);
  if (auto v = compute.get("mode")) c.mode = as_enum<ComputeMode>(*v);
  if (auto v = compute.get("efficiency")) c.efficiency = as_real(*v, 0, true, 1);
  if (auto v = compute.get("memory_efficiency")) c.memory_efficiency = as_real(*v, 0, true, 1);
  std::optional<YamlValue> step_time = compute.get("step_time");
  std::optional<YamlValue> samples_per_second = compute.get("samples_per_second");
  if (step_time && samples_per_second) {
    fail(*samples_per_second, "give either step_time or samples_per_second, not both");
  }
  if (step_time) c.step_time = as_quantity(*step_time, units::Kind::kDuration, Sign::kPositive);
  if (samples_per_second) {
    // A single-GPU benchmark reports samples/s; one optimizer step of one GPU processes
    // batch_per_gpu * gradient_accumulation samples.
    const TrainingSpec& t = scenario->training;
    double rate = as_real(*samples_per_second, 0, true);
    c.step_time = static_cast<double>(t.batch_per_gpu) * t.gradient_accumulation / rate;
  }
  if (auto v = compute.get("overlap_slowdown")) c.overlap_slowdown = as_real(*v, 1);
  if (auto v = compute.get("framework_overhead")) c.framework_overhead = as_real(*v, 1);
  std::optional<YamlValue> profile = compute.get("profile");
  if (profile) c.profile = as_existing_path(*profile, *context);

  if (c.mode == ComputeMode::kMeasured && c.step_time == 0) {
    compute.require("step_time",
                    "mode measured scales the model to a measured single-GPU step: give "
                    "step_time (e.g. 250ms) or samples_per_second");
  }
  if (c.mode == ComputeMode::kProfile && c.profile.empty()) {
    compute.require("profile", "mode profile reads per-layer times from a calibration profile");
  }
  // The profile is read here, at the edge, once: the cost model and the ledger use the typed
  // value. It is checked to describe this GPU and precision: a missing precision is refused
  // rather than replaced by other rates; another device is a warning (profile_match.h).
  if (c.mode == ComputeMode::kProfile && profile) {
    auto measured = std::make_shared<const CalibrationProfile>(load_profile(c.profile));
    const Precision precision = scenario->training.precision;
    const std::string missing = profile_precision_missing(*measured, precision);
    if (!missing.empty()) fail(*profile, missing);
    c.profile_mismatch = profile_mismatch(*measured, scenario->cluster.gpu, precision);
    c.measured_profile = std::move(measured);
  }
}

}  // namespace ddpsim
