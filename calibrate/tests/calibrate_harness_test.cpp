// The harness binary end to end. Without a GPU: exit 3 with cudaGetDeviceCount's reason, both
// directly and through `ddpsim calibrate`, and bad input is still exit 2. With a GPU: a small
// model is calibrated and the profile it writes loads with every section filled.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>

#include "kernels/device_probe.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/model/model_zoo.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

using Result = testing::ShellRun;
Result run(const std::string& command) { return testing::run_shell(command); }

const testing::ScratchFolder kScratch("ddpsim-harness-test");
fs::path fresh_dir(const std::string& name) { return kScratch.fresh(name); }

bool have_gpu() { return kernels::cuda_device_count(nullptr) > 0; }

TEST(CalibrateHarness, WithoutAGpuExitsThreeSayingWhyAndWritesNothing) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present: the calibration test covers this machine";
  const fs::path dir = fresh_dir("nogpu");
  const std::string out = (dir / "p.yaml").string();
  const Result r =
      run(std::string("'") + DDPSIM_CALIBRATE_BINARY + "' --model resnet50 -o '" + out + "'");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("no CUDA device"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  fs::remove_all(dir);
}

TEST(CalibrateHarness, DdpsimCalibrateRunsTheHarnessNextToIt) {
  if (have_gpu()) GTEST_SKIP() << "a GPU is present: the calibration test covers this machine";
  const Result r = run(std::string("env -u DDPSIM_CALIBRATE '") + DDPSIM_BINARY +
                       "' calibrate --model mlp --batch 4 -o /tmp/ddpsim_never_written.yaml");
  EXPECT_EQ(r.code, 3) << r.output;
  EXPECT_NE(r.output.find("ddpsim-calibrate: no CUDA device"), std::string::npos) << r.output;
}

TEST(CalibrateHarness, BadInputIsExitTwoOnAnyMachine) {
  const Result precision = run(std::string("'") + DDPSIM_CALIBRATE_BINARY +
                               "' --model mlp --precision fp8 -o /tmp/ddpsim_never_written.yaml");
  EXPECT_EQ(precision.code, 2) << precision.output;
  // fp8 is a scenario precision, but the kernels have no fp8 GEMM: refused with the reason.
  EXPECT_NE(precision.output.find("the harness times fp32, tf32, fp16 and bf16 only"),
            std::string::npos)
      << precision.output;
  const Result unknown = run(std::string("'") + DDPSIM_CALIBRATE_BINARY +
                             "' --model mlp --precision fp4 -o /tmp/ddpsim_never_written.yaml");
  EXPECT_EQ(unknown.code, 2) << unknown.output;
  EXPECT_NE(unknown.output.find("allowed: fp32, tf32, fp16, bf16"), std::string::npos)
      << unknown.output;
  const Result model = run(std::string("'") + DDPSIM_CALIBRATE_BINARY +
                           "' --model resnet5O -o /tmp/ddpsim_never_written.yaml");
  EXPECT_EQ(model.code, 2) << model.output;
}

TEST(CalibrateHarness, CalibratesASmallModelIntoALoadableProfile) {
  std::string reason;
  if (kernels::cuda_device_count(&reason) == 0) GTEST_SKIP() << reason;
  const fs::path dir = fresh_dir("gpu");
  const std::string out = (dir / "p.yaml").string();
  const Result r = run(std::string("'") + DDPSIM_CALIBRATE_BINARY +
                       "' --model mlp --batch 8 --precision bf16 --repeats 3 --warmup 1 "
                       "--max-bytes 1MiB -o '" +
                       out + "'");
  ASSERT_EQ(r.code, 0) << r.output;
  const CalibrationProfile p = load_profile(out);
  EXPECT_FALSE(p.device.name.empty());
  EXPECT_FALSE(p.device.date.empty());
  EXPECT_GT(p.ceilings.gemm_flops(Precision::kBf16), 0);
  ASSERT_TRUE(p.ceilings.d2d && p.ceilings.h2d && p.ceilings.d2h);
  EXPECT_GT(p.ceilings.d2d->bandwidth, 0);
  ASSERT_EQ(p.runs.size(), 1u);
  const ModelRun& run = p.runs[0];
  ModelSpec spec;
  spec.name = "mlp";
  spec.mlp_layers = {1024, 4096, 4096, 1024};  // what the harness builds for mlp
  Model model;
  std::string error;
  ASSERT_TRUE(build_model(spec, &model, &error)) << error;
  EXPECT_EQ(run.layers.size() + run.skipped.size(), model.layers.size()) << r.output;
  for (const LayerTiming& t : run.layers) {
    EXPECT_GT(t.fwd.median, 0) << t.name;
    EXPECT_GT(t.bwd.median, 0) << t.name;
  }
  ASSERT_TRUE(p.overlap);
  EXPECT_GT(p.overlap->gemm_alone.median, 0);
  EXPECT_EQ(p.collectives.size(), 4u);
  fs::remove_all(dir);
}

// Every ResNet-50 layer has a shape the harness can run: the 1x1 convolutions of the
// bottlenecks (padding 0) were once skipped as shapeless, which only a real GPU run showed.
TEST(CalibrateHarness, TimesEveryResNet50Layer) {
  std::string reason;
  if (kernels::cuda_device_count(&reason) == 0) GTEST_SKIP() << reason;
  const fs::path dir = fresh_dir("gpu-resnet50");
  const std::string out = (dir / "p.yaml").string();
  const Result r = run(std::string("'") + DDPSIM_CALIBRATE_BINARY +
                       "' --model resnet50 --batch 4 --precision bf16 --repeats 3 --warmup 1 "
                       "--no-collectives -o '" +
                       out + "'");
  ASSERT_EQ(r.code, 0) << r.output;
  const CalibrationProfile p = load_profile(out);
  ASSERT_EQ(p.runs.size(), 1u);
  EXPECT_EQ(p.runs[0].layers.size(), 175u);
  for (const auto& s : p.runs[0].skipped) ADD_FAILURE() << s.name << ": " << s.reason;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ddpsim
