// A calibration profile used for another device or precision than the scenario's: another GPU
// family or a CPU is a warning (summary and results.json), a precision the profile lacks is exit 2
// naming the file and the precisions it has (never the silent fallback to other rates); fp8 uses
// the bf16 measurements, as documented (scenarios/profiles/README.md, "Semantics").
#include "sim/measurements/profile_match.h"

#include <gtest/gtest.h>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/input/scenario_loader.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/scenario/gpu_presets.h"
#include "sim/text/input_error.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

const std::string kSource = DDPSIM_SOURCE_DIR;
const std::string kH200Scenario = kSource + "/scenarios/profiles/h200-one-gpu.yaml";
const testing::ScratchFolder kScratch("ddpsim-profile-match-test");

// What `ddpsim_torch.py export --time --device cpu --precision fp32` writes: an fp32 run and the
// fp32 GEMM ceiling, on a CPU.
std::string cpu_profile() {
  CalibrationProfile p;
  p.device.name = "CPU: Test Xeon (2 threads)";
  ModelRun run;
  run.model = "resnet50";
  run.batch = 64;
  run.precision = Precision::kFp32;
  LayerTiming t;
  t.name = "conv1";
  t.kind = LayerKind::kConv;
  t.fwd = {1e-2, 1e-2, 1e-2, 5};
  t.bwd = {2e-2, 2e-2, 2e-2, 5};
  run.layers.push_back(t);
  p.runs.push_back(run);
  GemmCeiling g;
  g.precision = Precision::kFp32;
  g.m = g.n = g.k = 1024;
  g.time = {0.05, 0.05, 0.05, 5};
  g.flops = 2.0 * 1024 * 1024 * 1024 / 0.05;
  p.ceilings.gemm.push_back(g);
  const std::string path = (kScratch.root() / "cpu.profile.yaml").string();
  write_profile(p, path);
  return path;
}

std::string error_of(const std::vector<std::string>& overrides) {
  try {
    load_scenario(kH200Scenario, overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  ADD_FAILURE() << "no error";
  return "";
}

TEST(ProfileMatch, DevicesAreComparedByGpuFamilyAndACpuNeverMatches) {
  CalibrationProfile p;
  p.source = "p.yaml";
  p.device.name = "NVIDIA H100 80GB HBM3";
  EXPECT_EQ(profile_device_mismatch(p, find_gpu_preset("h100-sxm-80gb")->spec), "");
  EXPECT_EQ(profile_device_mismatch(p, find_gpu_preset("h100-pcie-80gb")->spec), "");
  EXPECT_EQ(profile_device_mismatch(p, find_gpu_preset("h200-sxm-141gb")->spec),
            "p.yaml was measured on NVIDIA H100 80GB HBM3 and drives h200-sxm-141gb: its times "
            "describe another GPU");
  p.device.name = "CPU: Test Xeon (2 threads)";
  EXPECT_NE(profile_device_mismatch(p, find_gpu_preset("a100-sxm-80gb")->spec)
                .find("was measured on a CPU (CPU: Test Xeon (2 threads)) and drives "
                      "a100-sxm-80gb"),
            std::string::npos);
  p.device.name = "";
  EXPECT_NE(profile_device_mismatch(p, find_gpu_preset("a100-sxm-80gb")->spec)
                .find("does not record its device"),
            std::string::npos);
}

TEST(ProfileMatch, AnH200ProfileDrivingAnH100WarnsInTheSummaryAndResultsJson) {
  const Scenario h100 = load_scenario(kH200Scenario, {"cluster.gpu=h100-sxm-80gb"});
  EXPECT_NE(h100.compute.profile_mismatch.find(
                "h200-resnet50.yaml was measured on NVIDIA H200 and drives h100-sxm-80gb"),
            std::string::npos)
      << h100.compute.profile_mismatch;
  EXPECT_EQ(load_scenario(kH200Scenario).compute.profile_mismatch, "");

  const fs::path dir = kScratch.fresh("h100");
  const testing::Exited run =
      testing::run_program({DDPSIM_BINARY, "simulate", kH200Scenario, "--set",
                            "cluster.gpu=h100-sxm-80gb", "-o", (dir / "out").string()},
                           kScratch);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("warning         " + h100.compute.profile_mismatch), std::string::npos)
      << run.out;
  std::ifstream in(dir / "out" / "results.json");
  const nlohmann::json doc = nlohmann::json::parse(in);
  const auto& warnings = doc.at("result").at("warnings");
  ASSERT_EQ(warnings.size(), 1u) << warnings.dump();
  EXPECT_EQ(warnings[0].get<std::string>(), h100.compute.profile_mismatch);
}

TEST(ProfileMatch, ACpuProfileForAGpuWarnsAndAMissingPrecisionExitsTwo) {
  const std::string cpu = cpu_profile();
  const Scenario fp32 =
      load_scenario(kH200Scenario, {"compute.profile=" + cpu, "training.precision=fp32"});
  EXPECT_NE(fp32.compute.profile_mismatch.find("was measured on a CPU"), std::string::npos)
      << fp32.compute.profile_mismatch;
  // bf16 (the scenario's own precision): the profile has fp32 only. No silent fallback.
  EXPECT_EQ(error_of({"compute.profile=" + cpu}),
            "<--set compute.profile>: compute.profile: " + cpu +
                " has no measurements at bf16, the scenario's training.precision; it has fp32: "
                "measure at bf16 (ddpsim calibrate --precision bf16, or ddpsim_torch.py export "
                "--time --precision bf16), or train at a precision it has");
  const testing::Exited run =
      testing::run_program({DDPSIM_BINARY, "simulate", kH200Scenario, "--set",
                            "compute.profile=" + cpu, "-o", (kScratch.root() / "refused").string()},
                           kScratch);
  EXPECT_EQ(run.exit_code, 2) << run.out << run.err;
  EXPECT_NE(run.err.find("it has fp32"), std::string::npos) << run.err;
}

TEST(ProfileMatch, Fp8UsesTheBf16MeasurementsAndLayersTimedAtAnotherPrecisionWarn) {
  // h200-resnet50.yaml: layers timed at bf16, GEMM ceilings at fp32, tf32, fp16 and bf16.
  const Scenario fp8 = load_scenario(kH200Scenario, {"training.precision=fp8"});
  EXPECT_EQ(fp8.compute.profile_mismatch, "");
  const Scenario fp32 = load_scenario(kH200Scenario, {"training.precision=fp32"});
  EXPECT_NE(fp32.compute.profile_mismatch.find(
                "timed its layers at bf16 only, the scenario trains at fp32"),
            std::string::npos)
      << fp32.compute.profile_mismatch;
  const CalibrationProfile p = load_profile(kSource + "/scenarios/profiles/h200-resnet50.yaml");
  EXPECT_EQ(profile_precisions(p), (std::vector<Precision>{Precision::kFp32, Precision::kTf32,
                                                           Precision::kFp16, Precision::kBf16}));
}

}  // namespace
}  // namespace ddpsim
