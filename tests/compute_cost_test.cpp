// Per-layer compute time: roofline, measured scaling, and calibration profiles.
#include "sim/cost/compute_cost.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "sim/model/model_zoo.h"
#include "sim/profile/profile_yaml.h"
#include "sim/scenario/scenario_loader.h"

namespace ddpsim {
namespace {

const char* kMlp = R"(
cluster: {nodes: 1, gpus_per_node: 1, gpu: a100-sxm-40gb, pcie: 32GB/s}
model: {name: mlp, layers: [1024, 4096, 1024]}
training: {batch_per_gpu: 256, precision: fp16, optimizer: sgd}
compute: {mode: roofline, efficiency: 0.5, memory_efficiency: 0.8}
)";

Model build(const Scenario& s) {
  Model m;
  std::string error;
  EXPECT_TRUE(build_model(s.model, &m, &error)) << error;
  return m;
}

TEST(ComputeCost, LinearLayerIsTheRooflineOfItsFlopsAtTensorCorePeak) {
  const Scenario s = parse_scenario_text(kMlp, "t.yaml");
  const Model m = build(s);
  const ComputePlan plan = plan_compute(s, m);
  // The first Linear 1024->4096 at batch 256: 2*1024*4096*256 FLOPs at 312 TFLOP/s x 0.5 is
  // compute-bound (its bytes are far below the HBM time).
  const double flops = 2.0 * 1024 * 4096 * 256;
  ASSERT_GE(m.layers.size(), 1u);
  EXPECT_NEAR(plan.layers[0].forward, flops / (312e12 * 0.5), 1e-12);
  EXPECT_NEAR(plan.layers[0].backward, 2 * flops / (312e12 * 0.5), 1e-12);
  // SGD streams 12 bytes per parameter at 80 % of 1555 GB/s.
  EXPECT_NEAR(plan.optimizer, m.params() * 12.0 / (1555e9 * 0.8), 1e-12);
}

TEST(ComputeCost, HigherEfficiencyIsNeverSlower) {
  double previous = 1e30;
  for (const char* e : {"0.2", "0.4", "0.6", "0.8", "1.0"}) {
    const Scenario s =
        parse_scenario_text(kMlp, "t.yaml", {std::string("compute.efficiency=") + e});
    const double t = plan_compute(s, build(s)).step_time(1);
    EXPECT_LE(t, previous);
    previous = t;
  }
}

TEST(ComputeCost, ProfileLayersAreUsedAsMeasuredAndTheRestByTheProfileRoofline) {
  const Scenario base = parse_scenario_text(kMlp, "t.yaml");
  const Model m = build(base);
  CalibrationProfile profile;
  profile.device.name = "test GPU";
  ModelRun run;
  run.model = "mlp";
  run.batch = 256;
  run.precision = Precision::kFp16;
  LayerTiming first;
  first.name = m.layers[0].name;
  first.kind = m.layers[0].kind;
  first.fwd = {1e-3, 1e-3, 1e-3, 5};
  first.bwd = {2.5e-3, 2.5e-3, 2.5e-3, 5};
  run.layers.push_back(first);
  profile.runs.push_back(run);
  const std::string path = ::testing::TempDir() + "/ddpsim_compute_profile.yaml";
  write_profile(profile, path);

  const Scenario s =
      parse_scenario_text(kMlp, "t.yaml", {"compute.mode=profile", "compute.profile=" + path});
  const ComputePlan measured = plan_compute(s, m);
  const ComputePlan roofline = plan_compute(base, m);
  EXPECT_DOUBLE_EQ(measured.layers[0].forward, 1e-3);
  EXPECT_DOUBLE_EQ(measured.layers[0].backward, 2.5e-3);
  // Layers the profile did not time fall back to the roofline with the scenario's efficiencies
  // (the profile has no ceilings or per-kind efficiencies here).
  for (size_t l = 1; l < m.layers.size(); ++l) {
    EXPECT_NEAR(measured.layers[l].forward, roofline.layers[l].forward, 1e-15);
    EXPECT_NEAR(measured.layers[l].backward, roofline.layers[l].backward, 1e-15);
  }
  std::remove(path.c_str());
}

TEST(ComputeCost, OverlapSlowdownComesFromTheProfileUnlessTheScenarioGivesIt) {
  const Scenario base = parse_scenario_text(kMlp, "t.yaml");
  const Model m = build(base);
  EXPECT_EQ(plan_compute(base, m).overlap_slowdown, 1.0);  // roofline, nothing measured
  CalibrationProfile profile;
  profile.device.name = "test GPU";
  OverlapInterference overlap;
  overlap.gemm_alone = {1.0e-3, 1.0e-3, 1.0e-3, 5};
  overlap.gemm_with_allreduce = RepeatStats{1.2e-3, 1.2e-3, 1.2e-3, 5};
  profile.overlap = overlap;
  const std::string path = ::testing::TempDir() + "/ddpsim_overlap_profile.yaml";
  write_profile(profile, path);
  const std::vector<std::string> mode = {"compute.mode=profile", "compute.profile=" + path};
  const ComputePlan measured = plan_compute(parse_scenario_text(kMlp, "t.yaml", mode), m);
  EXPECT_DOUBLE_EQ(measured.overlap_slowdown, 1.2);
  EXPECT_EQ(measured.overlap_source, "measured in the profile");
  auto given = mode;
  given.push_back("compute.overlap_slowdown=1.05");
  const ComputePlan chosen = plan_compute(parse_scenario_text(kMlp, "t.yaml", given), m);
  EXPECT_DOUBLE_EQ(chosen.overlap_slowdown, 1.05);
  EXPECT_EQ(chosen.overlap_source, "compute.overlap_slowdown");
  std::remove(path.c_str());
}

}  // namespace
}  // namespace ddpsim
