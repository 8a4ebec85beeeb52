// Per-layer compute time: roofline, measured scaling, and calibration profiles.
#include "sim/cost/compute_cost.h"

#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/input/scenario_loader.h"
#include "sim/ledger/ledger.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/model/model_zoo.h"

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

// fp8 (Transformer Engine): conv/linear GEMMs at the fp8 rate, everything else as bf16.
const char* kFp8Mlp = R"(
cluster: {nodes: 1, gpus_per_node: 1, gpu: h100-sxm-80gb, pcie: 64GB/s}
model: {name: mlp, layers: [4096, 4096, 4096, 4096]}
training: {batch_per_gpu: 8192, precision: bf16, optimizer: adam}
compute: {mode: roofline, efficiency: 0.5, memory_efficiency: 0.8}
)";

double linear_time(const ComputePlan& plan, const Model& m) {
  double t = 0;
  for (size_t l = 0; l < m.layers.size(); ++l)
    if (m.layers[l].kind == LayerKind::kLinear)
      t += plan.layers[l].forward + plan.layers[l].backward;
  return t;
}

TEST(ComputeCost, Fp8RunsLinearLayersAtTheFp8RateAndTheRestAsBf16) {
  const Scenario bf16 = parse_scenario_text(kFp8Mlp, "t.yaml");
  const Scenario fp8 = parse_scenario_text(kFp8Mlp, "t.yaml", {"training.precision=fp8"});
  const Model m = build(bf16);
  const ComputePlan a = plan_compute(bf16, m);
  const ComputePlan b = plan_compute(fp8, m);
  const GpuSpec& h100 = bf16.cluster.gpu;
  ASSERT_GT(h100.fp8_flops, h100.bf16_flops);
  // The linear layers are compute-bound at batch 8192 (2*4096^2*8192 FLOPs against ~170 MB):
  // their time scales by bf16 / fp8 exactly.
  const double ratio = h100.bf16_flops / h100.fp8_flops;
  EXPECT_NEAR(linear_time(b, m), linear_time(a, m) * ratio, 1e-9);
  EXPECT_LT(linear_time(b, m), linear_time(a, m));
  // Non-GEMM layers (activations) and the optimizer are unchanged.
  for (size_t l = 0; l < m.layers.size(); ++l) {
    if (m.layers[l].kind == LayerKind::kLinear) continue;
    EXPECT_DOUBLE_EQ(b.layers[l].forward, a.layers[l].forward) << m.layers[l].name;
    EXPECT_DOUBLE_EQ(b.layers[l].backward, a.layers[l].backward) << m.layers[l].name;
  }
  EXPECT_DOUBLE_EQ(b.optimizer, a.optimizer);
  EXPECT_EQ(activation_bytes(Precision::kFp8), activation_bytes(Precision::kBf16));
}

TEST(ComputeCost, Fp8LeavesAttentionMatmulsAtTheBf16Rate) {
  const char* gpt = R"(
cluster: {nodes: 1, gpus_per_node: 1, gpu: b200-sxm-180gb, pcie: 64GB/s}
model: {name: gpt2}
training: {batch_per_gpu: 8, precision: bf16, optimizer: adam}
compute: {mode: roofline, efficiency: 0.5}
)";
  const Scenario bf16 = parse_scenario_text(gpt, "t.yaml");
  const Scenario fp8 = parse_scenario_text(gpt, "t.yaml", {"training.precision=fp8"});
  const Model m = build(bf16);
  const ComputePlan a = plan_compute(bf16, m);
  const ComputePlan b = plan_compute(fp8, m);
  int attention = 0;
  for (size_t l = 0; l < m.layers.size(); ++l) {
    if (m.layers[l].kind != LayerKind::kAttention) continue;
    ++attention;
    EXPECT_DOUBLE_EQ(b.layers[l].forward, a.layers[l].forward) << m.layers[l].name;
  }
  EXPECT_GT(attention, 0);
  EXPECT_LT(b.forward + b.backward, a.forward + a.backward);
  EXPECT_DOUBLE_EQ(matmul_peak(fp8.cluster.gpu, Precision::kFp8), 4.5e15);
  // A hand-built GPU without fp8 falls back to its bf16 rate.
  GpuSpec no_fp8 = fp8.cluster.gpu;
  no_fp8.fp8_flops = 0;
  EXPECT_DOUBLE_EQ(matmul_peak(no_fp8, Precision::kFp8), no_fp8.bf16_flops);
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

// A profile that timed the first layer of the MLP at batch 256, fp16: 1 ms forward, 2.5 ms
// backward.
CalibrationProfile first_layer_profile(const Model& m, const std::string& device) {
  CalibrationProfile profile;
  profile.device.name = device;
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
  return profile;
}

TEST(ComputeCost, ProfileLayersAreUsedAsMeasuredAndTheRestByTheProfileRoofline) {
  const Scenario base = parse_scenario_text(kMlp, "t.yaml");
  const Model m = build(base);
  const CalibrationProfile profile = first_layer_profile(m, "test GPU");
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

// A GEMM of 1 ms alone that takes `slowdown` ms beside an all-reduce.
OverlapInterference gemm_slowed_by(double slowdown) {
  OverlapInterference overlap;
  overlap.gemm_alone = {1.0e-3, 1.0e-3, 1.0e-3, 5};
  const double t = slowdown * 1e-3;
  overlap.gemm_with_allreduce = RepeatStats{t, t, t, 5};
  return overlap;
}

TEST(ComputeCost, OverlapSlowdownComesFromTheProfileUnlessTheScenarioGivesIt) {
  const Scenario base = parse_scenario_text(kMlp, "t.yaml");
  const Model m = build(base);
  EXPECT_EQ(plan_compute(base, m).overlap_slowdown, 1.0);  // roofline, nothing measured
  CalibrationProfile profile;
  profile.device.name = "test GPU";
  profile.overlap = gemm_slowed_by(1.2);
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

// The profile is parsed once, by the loader, into the typed scenario: the cost model and the
// assumption ledger use that value, so a profile changed or removed after loading changes
// nothing, and every copy of the scenario (sweep points, uncertainty draws) shares it.
TEST(ComputeCost, TheProfileIsReadOnceAtLoadNotByTheCostModel) {
  const Scenario base = parse_scenario_text(kMlp, "t.yaml");
  const Model m = build(base);
  // The scenario's GPU: no mismatch.
  CalibrationProfile profile = first_layer_profile(m, "NVIDIA A100-SXM4-40GB");
  profile.overlap = gemm_slowed_by(1.3);
  const std::string path = ::testing::TempDir() + "/ddpsim_read_once_profile.yaml";
  write_profile(profile, path);
  // Two GPUs: compute overlaps NCCL, so the ledger has the overlap row.
  const Scenario s = parse_scenario_text(
      kMlp, "t.yaml",
      {"compute.mode=profile", "compute.profile=" + path, "cluster.gpus_per_node=2",
       "cluster.intra_node={kind: nvswitch, bandwidth: 300GB/s, latency: 1us}"});
  ASSERT_NE(s.compute.measured_profile, nullptr);
  EXPECT_EQ(s.compute.measured_profile->device.name, "NVIDIA A100-SXM4-40GB");
  ASSERT_EQ(std::remove(path.c_str()), 0);  // gone: nothing may read it again

  const Scenario copy = s;  // as a sweep point or an uncertainty draw copies it
  EXPECT_EQ(copy.compute.measured_profile, s.compute.measured_profile);
  const ComputePlan plan = plan_compute(copy, m);
  EXPECT_DOUBLE_EQ(plan.layers[0].forward, 1e-3);
  EXPECT_DOUBLE_EQ(plan.layers[0].backward, 2.5e-3);
  EXPECT_DOUBLE_EQ(plan.overlap_slowdown, 1.3);
  bool from_profile = false;
  for (const LedgerEntry& e : build_ledger(copy)) {
    if (std::string(e.row->key) != "compute.overlap_slowdown") continue;
    from_profile = true;
    EXPECT_EQ(e.source, InputSource::kMeasured);
    EXPECT_DOUBLE_EQ(e.value, 1.3);
    EXPECT_EQ(e.file, s.compute.profile);
    EXPECT_EQ(e.device, "NVIDIA A100-SXM4-40GB");
  }
  EXPECT_TRUE(from_profile);
  // Roofline and measured modes hold no profile.
  EXPECT_EQ(base.compute.measured_profile, nullptr);
}

// A broken profile is the user's mistake, refused when the scenario loads, at its line.
TEST(ComputeCost, ABrokenProfileIsRefusedAtLoadWithItsLine) {
  const std::string path = ::testing::TempDir() + "/ddpsim_broken_profile.yaml";
  {
    std::FILE* f = std::fopen(path.c_str(), "w");
    ASSERT_NE(f, nullptr);
    std::fputs("format: 1\ndevice: {name: x}\nrunz: []\n", f);
    std::fclose(f);
  }
  try {
    parse_scenario_text(kMlp, "t.yaml", {"compute.mode=profile", "compute.profile=" + path});
    ADD_FAILURE() << "a broken profile was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(std::filesystem::path(e.where().file).filename(), "ddpsim_broken_profile.yaml");
    EXPECT_EQ(e.where().line, 3);
    EXPECT_EQ(e.where().column, 1);
    EXPECT_NE(e.message().find("unknown key 'runz'"), std::string::npos) << e.message();
  }
  std::remove(path.c_str());
}

// A job of 2+ GPUs pays the data-parallel framework's per-step work: every compute time is the
// single-GPU one times compute.framework_overhead. A lone GPU has no peer and ignores it.
TEST(ComputeCost, FrameworkOverheadScalesEveryComputeTimeOfAMultiGpuJob) {
  const Scenario one = parse_scenario_text(kMlp, "t.yaml", {"compute.framework_overhead=1.07"});
  const Model m = build(one);
  const ComputePlan plain = plan_compute(parse_scenario_text(kMlp, "t.yaml"), m);
  const ComputePlan lone = plan_compute(one, m);
  EXPECT_DOUBLE_EQ(lone.forward, plain.forward);
  EXPECT_DOUBLE_EQ(lone.optimizer, plain.optimizer);
  const ComputePlan eight =
      plan_compute(parse_scenario_text(
                       kMlp, "t.yaml",
                       {"cluster.gpus_per_node=8", "cluster.intra_node.kind=nvswitch",
                        "cluster.intra_node.bandwidth=300GB/s", "compute.framework_overhead=1.07"}),
                   m);
  const ComputePlan eight_plain = plan_compute(
      parse_scenario_text(kMlp, "t.yaml",
                          {"cluster.gpus_per_node=8", "cluster.intra_node.kind=nvswitch",
                           "cluster.intra_node.bandwidth=300GB/s"}),
      m);
  EXPECT_NEAR(eight.forward, 1.07 * eight_plain.forward, 1e-15);
  EXPECT_NEAR(eight.backward, 1.07 * eight_plain.backward, 1e-15);
  EXPECT_NEAR(eight.optimizer, 1.07 * eight_plain.optimizer, 1e-15);
  for (size_t l = 0; l < m.layers.size(); ++l)
    EXPECT_NEAR(eight.layers[l].backward, 1.07 * eight_plain.layers[l].backward, 1e-15);
  EXPECT_GT(eight_plain.forward, 0);
}

}  // namespace
}  // namespace ddpsim
