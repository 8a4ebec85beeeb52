// The one GPU table (sim/scenario/gpu_aliases.h): every preset has its nvidia-smi name and a
// family, and a measurement taken on a preset's GPU is accepted for that preset. Walks every
// preset through "profile measured on this GPU, used on this GPU": no mismatch warning, no
// compute.time_scale row in the ledger, the profile's overlap factor kept as measured; the same
// name passes the alpha-beta table's and the platform fit's GPU checks. Before the table, the
// family list of alpha_beta_use.cpp had no B200 and b200-sxm-180gb failed all of these.
#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "sim/input/scenario_loader.h"
#include "sim/ledger/ledger.h"
#include "sim/measurements/alpha_beta_use.h"
#include "sim/measurements/platform_file.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/scenario/gpu_aliases.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

const std::string kSource = DDPSIM_SOURCE_DIR;
const std::string kScenario = kSource + "/scenarios/profiles/h200-one-gpu.yaml";
const std::string kProfile = kSource + "/scenarios/profiles/h200-resnet50.yaml";
const testing::ScratchFolder kScratch("ddpsim-gpu-names-test");

const LedgerEntry* entry(const std::vector<LedgerEntry>& ledger, const std::string& key) {
  for (const LedgerEntry& e : ledger)
    if (key == e.row->key) return &e;
  return nullptr;
}

TEST(GpuNames, EveryPresetHasOneRowWithANameAndAFamily) {
  std::set<std::string> presets;
  for (const GpuAlias& a : gpu_aliases()) presets.insert(a.preset);
  for (const GpuPreset& p : gpu_presets()) {
    EXPECT_EQ(presets.count(p.key), 1u) << p.key;
    EXPECT_NE(gpu_family(p.key), "") << p.key;
  }
  for (const GpuName& row : gpu_table()) {
    EXPECT_NE(std::string(row.family), "") << row.name;
    if (*row.preset == '\0') continue;
    ASSERT_NE(find_gpu_preset(row.preset), nullptr) << row.preset;
    EXPECT_EQ(gpu_family(row.name), row.family) << row.name;
    EXPECT_EQ(gpu_family(row.preset), row.family) << row.preset;
  }
  // Longest family first, whatever the rows' order: a GB200 is not a B200, an A100 not an A10.
  EXPECT_EQ(gpu_family("NVIDIA GB200"), "gb200");
  EXPECT_EQ(gpu_family("NVIDIA B200"), "b200");
  EXPECT_EQ(gpu_family("NVIDIA A100 80GB PCIe"), "a100");
  EXPECT_EQ(gpu_family("NVIDIA H800"), "h800");
  EXPECT_NE(gpu_family("NVIDIA H800"), gpu_family("h100-sxm-80gb"));
}

TEST(GpuNames, ProfileMeasuredOnEachPresetsGpuIsUsedOnItWithoutMismatch) {
  CalibrationProfile measured = load_profile(kProfile);
  ASSERT_TRUE(measured.overlap.has_value());
  const double slowdown = measured.overlap->slowdown();
  ASSERT_GT(slowdown, 1.0);
  for (const GpuAlias& gpu : gpu_aliases()) {
    SCOPED_TRACE(gpu.preset);
    measured.device.name = gpu.name;
    const std::string path = (kScratch.root() / (std::string(gpu.preset) + ".yaml")).string();
    write_profile(measured, path);
    // Two GPUs, so that NCCL overlaps compute and the overlap row applies.
    const Scenario s =
        load_scenario(kScenario, {std::string("cluster.gpu=") + gpu.preset,
                                  "cluster.gpus_per_node=2", "compute.profile=" + path});
    EXPECT_EQ(s.compute.profile_mismatch, "");
    const std::vector<LedgerEntry> ledger = build_ledger(s);
    EXPECT_EQ(entry(ledger, "compute.time_scale"), nullptr);
    const LedgerEntry* overlap = entry(ledger, "compute.overlap_slowdown");
    ASSERT_NE(overlap, nullptr);
    EXPECT_EQ(overlap->source, InputSource::kMeasured);
    EXPECT_DOUBLE_EQ(overlap->value, slowdown);
    EXPECT_EQ(overlap->device, gpu.name);

    // The same GPU name on an alpha-beta table and a platform fit: no GPU-type warning.
    CollectiveSweep sweep;
    sweep.gpus = s.cluster.total_gpus();
    sweep.nodes = s.cluster.nodes;
    sweep.device = gpu.name;
    sweep.fit.push_back({});
    sweep.fit.back().min_bytes = 0;
    sweep.fit.back().max_bytes = 1e12;
    EXPECT_TRUE(check_alpha_beta_use(sweep, s.cluster, {1e6}, "t.yaml", {}).empty());
    PlatformCalibration fit;
    fit.source = "fit.yaml";
    FittedParameter p;
    p.parameter = "cluster.intra_node.bandwidth";
    p.value = 100e9;
    p.device = gpu.name;
    fit.parameters.push_back(p);
    ClusterSpec cluster = s.cluster;
    std::vector<std::string> warnings;
    apply_platform_calibration(fit, &cluster, &warnings);
    EXPECT_TRUE(warnings.empty()) << warnings.front();
  }
}

}  // namespace
}  // namespace ddpsim
