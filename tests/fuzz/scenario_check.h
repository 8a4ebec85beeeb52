// Fuzz check: bytes -> validated Scenario, the whole path a scenario file takes before
// SimGrid: YAML parse, units, GPU presets, model zoo lookup, cross-field checks, --set overrides
// (each input line "#set key.path=value" becomes one, a YAML comment so seeds stay valid), then
// what is computed from an accepted scenario without SimGrid: the resolved-scenario JSON of
// results.json, the iteration plan (compute times, buckets), the memory report and the resource
// estimate. Accepted scenarios must give finite numbers everywhere.
#pragma once

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cost/iteration_plan.h"
#include "sim/cost/memory_fit.h"
#include "sim/cost/resource_estimate.h"
#include "sim/model/model_zoo.h"
#include "sim/scenario/scenario_json.h"
#include "sim/input/scenario_loader.h"
#include "tests/fuzz/fuzz_contract.h"

namespace ddpsim::fuzz::scenario_detail {

using namespace ddpsim;

inline std::vector<std::string> overrides_in(const std::string& text) {
  std::vector<std::string> overrides;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("#set ", 0) == 0) overrides.push_back(line.substr(5));
  }
  return overrides;
}

inline void check_accepted(const Scenario& s) {
  if (s.cluster.total_gpus() < 1) fuzz::finding("accepted a cluster without GPUs");
  if (s.training.warmup >= s.training.iterations) fuzz::finding("accepted warmup >= iterations");
  // bucket_cap 0 is per-tensor communication (one call per parameter tensor); below 0 or NaN
  // is a mistake, and so is a first bucket that is not positive.
  if (!(s.sync.bucket_cap >= 0) || !(s.sync.first_bucket > 0))
    fuzz::finding("accepted a negative bucket cap or an empty first bucket");
  // dump() throws on invalid UTF-8: results.json could not be written for this scenario.
  const nlohmann::json resolved = scenario_to_json(s);
  fuzz::expect_finite_json(resolved, "scenario");
  (void)resolved.dump();

  Model model;
  std::string error;
  if (!build_model(s.model, &model, &error))
    fuzz::finding("accepted model does not build: " + error);
  const IterationPlan plan = build_iteration_plan(s, model);
  fuzz::expect_finite(plan.compute.forward, "forward time");
  fuzz::expect_finite(plan.compute.backward, "backward time");
  fuzz::expect_finite(plan.compute.optimizer, "optimizer time");
  fuzz::expect_finite(plan.gradient_bytes, "gradient bytes");
  if (plan.backward_segments.size() != plan.buckets.size() + 1)
    fuzz::finding("backward segments do not match the buckets");
  for (double t : plan.backward_segments) {
    fuzz::expect_finite(t, "backward segment");
    if (t < 0) fuzz::finding("negative backward segment");
  }
  const MemoryReport memory = memory_report(s, model);
  fuzz::expect_finite(memory.total, "memory total");
  const ResourceEstimate cost = estimate_resources(s, plan);
  fuzz::expect_finite(cost.memory_bytes, "memory estimate");
  fuzz::expect_finite(cost.wall_seconds, "wall estimate");
  // Under the symmetric scope only the slice's GPUs have actors (sim/cost/symmetry.h).
  if (cost.actors < cost.simulated_gpus) fuzz::finding("fewer actors than simulated GPUs");
  // The guard must refuse by InputError only.
  check_resources(s, cost, ResourceLimits{32000, 64e9, 3600});
}

}  // namespace ddpsim::fuzz::scenario_detail

namespace ddpsim::fuzz {

// One input: accepted, or refused with an InputError; anything else is a finding.
inline void check_scenario(const uint8_t* data, size_t size) {
  using namespace scenario_detail;
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::expect_only_input_errors(
      [&] { check_accepted(parse_scenario_text(text, "fuzz.yaml", overrides_in(text))); });
}

}  // namespace ddpsim::fuzz
