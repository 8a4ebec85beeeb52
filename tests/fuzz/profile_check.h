// Fuzz check: calibration profiles (profile_yaml.h) and the alpha-beta tables of
// `sync.alpha_beta`. An accepted profile must answer every lookup the simulator makes with
// finite, non-negative times, and what ddpsim writes must read back: write -> read -> write
// gives the same text (a profile `ddpsim calibrate` updates is read again later). A scenario
// that computes with the profile (compute.mode: profile) gets finite layer times.
#pragma once

#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "sim/cost/iteration_plan.h"
#include "sim/input/scenario_loader.h"
#include "sim/measurements/calibration_profile.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/model/model_zoo.h"
#include "tests/fuzz/fuzz_contract.h"

namespace ddpsim::fuzz::profile_detail {

using namespace ddpsim;

// load_alpha_beta_table() reads a path; a private file in memory-backed /dev/shm keeps it cheap.
// It is removed when the process exits.
struct ScratchFile {
  std::string path;
  ~ScratchFile() { std::remove(path.c_str()); }
};

inline const std::string& scratch_path() {
  static const ScratchFile file{"/dev/shm/ddpsim-fuzz-profile-" + std::to_string(::getpid()) +
                                ".yaml"};
  return file.path;
}

inline void check_table(const std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>>& table) {
  for (const auto& [algorithm, rows] : table) {
    for (double bytes : {0.0, 1.0, 4096.0, 1e6, 25.0 * 1024 * 1024, 1e12}) {
      const std::optional<double> t = alpha_beta_time(table, algorithm, bytes);
      if (!t) fuzz::finding("a table's own algorithm has no time");
      fuzz::expect_finite(*t, "alpha-beta time");
      if (*t < 0) fuzz::finding("negative alpha-beta time");
    }
  }
}

inline void check_accepted_profile(const CalibrationProfile& p) {
  for (const ModelRun& run : p.runs) {
    for (const LayerTiming& layer : run.layers) {
      for (int batch : {1, run.batch, 2 * run.batch + 1}) {
        const auto t = layer_time(p, run.model, run.precision, layer.name, batch);
        if (!t) fuzz::finding("a profiled layer has no time");
        fuzz::expect_finite(t->fwd, "layer forward time");
        fuzz::expect_finite(t->bwd, "layer backward time");
      }
    }
  }
  if (p.overlap) fuzz::expect_finite(p.overlap->slowdown(), "overlap slowdown");
  check_table(all_reduce_tables(p));

  const std::string written = profile_to_yaml(p);
  CalibrationProfile again;
  try {
    again = parse_profile(written, "written.yaml");
  } catch (const InputError& e) {
    fuzz::finding(std::string("a written profile does not read back: ") + e.what());
  }
  if (profile_to_yaml(again) != written) fuzz::finding("profile round trip changed the text");
}

// compute.mode profile: the per-layer times of a model the profile timed (resnet50 in the seeds)
// and the roofline at its ceilings for one it did not (the MLP) must be finite.
inline void check_compute_plan(const std::string& path) {
  for (const char* model : {"{name: resnet50}", "{name: mlp, layers: [256, 512, 10]}"}) {
    const Scenario s = parse_scenario_text(
        std::string("cluster: {gpu: a100-sxm-40gb, pcie: 32GB/s}\nmodel: ") + model +
            "\ntraining: {batch_per_gpu: 64, precision: bf16}\ncompute: {mode: profile, "
            "profile: '" +
            path + "'}\n",
        "profile-user.yaml");
    Model built;
    std::string error;
    if (!build_model(s.model, &built, &error)) fuzz::finding("zoo model does not build: " + error);
    const IterationPlan plan = build_iteration_plan(s, built);
    for (const LayerTime& t : plan.compute.layers) {
      fuzz::expect_finite(t.forward, "profiled layer forward");
      fuzz::expect_finite(t.backward, "profiled layer backward");
      if (t.forward < 0 || t.backward < 0) fuzz::finding("negative layer time");
    }
    fuzz::expect_finite(plan.compute.optimizer, "profiled optimizer time");
    fuzz::expect_finite(plan.compute.step_time(1), "profiled step time");
  }
}

}  // namespace ddpsim::fuzz::profile_detail

namespace ddpsim::fuzz {

// One input: accepted, or refused with an InputError; anything else is a finding.
inline void check_profile(const uint8_t* data, size_t size) {
  using namespace profile_detail;
  const std::string text(reinterpret_cast<const char*>(data), size);
  bool accepted = false;
  fuzz::expect_only_input_errors([&] {
    const CalibrationProfile profile = parse_profile(text, "fuzz.yaml");
    accepted = true;
    check_accepted_profile(profile);
  });
  {
    std::ofstream out(scratch_path(), std::ios::binary | std::ios::trunc);
    out << text;
  }
  fuzz::expect_only_input_errors([&] { check_table(load_alpha_beta_table(scratch_path())); });
  // A scenario reads the profile through the same parser: a refused profile refuses the scenario
  // before any model is built, so only accepted profiles are worth the zoo and the plan.
  if (accepted) fuzz::expect_only_input_errors([&] { check_compute_plan(scratch_path()); });
}

}  // namespace ddpsim::fuzz
