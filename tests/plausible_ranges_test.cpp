// Every bandwidth, latency and rate key of a scenario has a plausible range from public
// datasheets; a value outside it is taken as written and reported with the value in bits and
// bytes and the slip it most likely is (issue 35: `nic: {bandwidth: 400GB/s}`, 3.2 Tb/s per NIC,
// ran without a word).
#include "sim/input/plausible_ranges.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/input/scenario_loader.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

const std::string kBinary = DDPSIM_BINARY;
const std::string kSource = DDPSIM_SOURCE_DIR;

// Two DGX-like nodes with real data, so every section a range lives in can be stated.
const char* kBase = R"(cluster:
  nodes: 2
  gpus_per_node: 8
  gpu: a100-sxm-40gb
  intra_node: {kind: nvswitch, bandwidth: 300GB/s, latency: 1us}
  pcie: 32GB/s
  nic: {count: 8, bandwidth: 200Gbps, latency: 2us}
model:
  name: resnet50
data:
  sample_bytes: 110KB
  decoded_bytes: 150528B
  storage: {kind: local, bandwidth: 2GB/s}
  decode: {kind: cpu, workers_per_gpu: 4, samples_per_core: 400}
)";

std::vector<std::string> warnings(const std::vector<std::string>& overrides) {
  return parse_scenario_text(kBase, "plausible.yaml", overrides).cluster.input_warnings;
}

std::string only_warning(const std::vector<std::string>& overrides) {
  const std::vector<std::string> w = warnings(overrides);
  EXPECT_EQ(w.size(), 1u) << (w.empty() ? std::string("none") : w.back());
  return w.empty() ? "" : w.front();
}

bool has(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(PlausibleRanges, ANicInBytesSaysBitsAndBytesAndTheLikelySlip) {
  const std::string w = only_warning({"cluster.nic.bandwidth=400GB/s"});
  EXPECT_TRUE(has(w,
                  "cluster.nic.bandwidth 400GB/s is 400 GB/s = 3,200 Gb/s per NIC and "
                  "direction, above the plausible"))
      << w;
  EXPECT_TRUE(has(w, "100 GB/s = 800 Gb/s")) << w;
  EXPECT_TRUE(has(w, "did you mean 400Gbps (bits per second)?")) << w;
  // As meant: nothing to say.
  EXPECT_TRUE(warnings({"cluster.nic.bandwidth=400Gbps"}).empty());
  EXPECT_TRUE(warnings({"cluster.nic.bandwidth=800 Gb/s"}).empty());
}

TEST(PlausibleRanges, DatasheetNotationsParseToTheSameRate) {
  for (const char* text : {"400Gbps", "400Gb/s", "400 Gb/s", "400Gbit/s", "50GB/s"}) {
    const Scenario s = parse_scenario_text(kBase, "plausible.yaml",
                                           {std::string("cluster.nic.bandwidth=") + text});
    EXPECT_DOUBLE_EQ(s.cluster.nic.bandwidth, 50e9) << text;
  }
}

TEST(PlausibleRanges, BothDirectionsAddedPrefixAndTimeSlipsAreNamed) {
  // B200's NVLink 5 is quoted as 1.8 TB/s per GPU: both directions together.
  std::string w = only_warning({"cluster.intra_node.bandwidth=1.8TB/s"});
  EXPECT_TRUE(has(w, "if 1.8TB/s counts both directions, write one: 900 GB/s")) << w;
  // PCIe Gen6 x16 is sold as 256 GB/s: both directions.
  w = only_warning({"cluster.pcie=256GB/s"});
  EXPECT_TRUE(has(w, "above the plausible 980 MB/s = 7.84 Gb/s to 128 GB/s = 1,024 Gb/s for PCIe"))
      << w;
  EXPECT_TRUE(has(w, "if 256GB/s counts both directions, write one: 128 GB/s")) << w;
  w = only_warning({"cluster.nic.latency=2ms"});
  EXPECT_TRUE(has(w, "cluster.nic.latency 2ms is 2.00 ms per message, above")) << w;
  EXPECT_TRUE(has(w, "did you mean 2us?")) << w;
  // 8 GPUs on one socket: up to 4 CPUs' memory (1 TB/s each) before it is implausible.
  EXPECT_TRUE(warnings({"cluster.host.bandwidth=4TB/s"}).empty());
  w = only_warning({"cluster.host.bandwidth=40TB/s"});
  EXPECT_TRUE(has(w, "to 4.00 TB/s = 32.0 Tb/s for host memory")) << w;
  EXPECT_TRUE(has(w, "is the unit's prefix 1000x too large?")) << w;
}

TEST(PlausibleRanges, BitsForBytesOnNvlinkIsReportedOnce) {
  // The older check already says "was 300GB/s meant?": one line, not two.
  const std::vector<std::string> w = warnings({"cluster.intra_node.bandwidth=300Gbps"});
  ASSERT_EQ(w.size(), 1u);
  EXPECT_TRUE(has(w[0], "was 300GB/s meant?")) << w[0];
}

// Each key of the table is a real scenario path: a value 10x above its range is reported there.
TEST(PlausibleRanges, EveryRangedKeyIsCheckedWhereTheScenarioWritesIt) {
  for (const PlausibleRange& r : plausible_ranges()) {
    const std::string key = r.key;
    if (*r.technology != '\0' && std::string(r.technology) != "nvswitch") continue;
    std::vector<std::string> set;
    if (key.rfind("sync.ps.", 0) == 0)
      set = {"sync.strategy=ps", "sync.ps.servers=2", "sync.ps.placement=dedicated"};
    if (key.rfind("sync.fusion.", 0) == 0) set = {"sync.fusion.threshold=64MiB"};
    if (key == "data.decode.gpu_time") set = {"data.decode.kind=gpu"};
    if (key == "data.storage.client_bandwidth") set = {"data.storage.kind=shared"};
    if (key == "cluster.pcie_switch.uplink") set = {"cluster.pcie_switch.gpus=4"};
    if (key.rfind("cluster.gpu.", 0) == 0) set = {"cluster.gpu={preset: a100-sxm-40gb}"};
    std::string value;
    switch (r.kind) {
      case units::Kind::kBandwidth:
        value = fmt::format("{}GB/s", r.high * 10 / 1e9);
        break;
      case units::Kind::kDuration:
        value = fmt::format("{}s", r.high * 10);
        break;
      case units::Kind::kFlopRate:
        value = fmt::format("{}TFLOPS", r.high * 10 / 1e12);
        break;
      case units::Kind::kBytes:
        break;
    }
    set.push_back(key + "=" + value);
    const std::vector<std::string> w = warnings(set);
    ASSERT_EQ(w.size(), 1u) << key << "=" << value;
    EXPECT_EQ(w[0].rfind(key + " " + value + " is ", 0), 0u) << w[0];
    EXPECT_TRUE(has(w[0], "above the plausible")) << w[0];
  }
}

// The bundled scenarios (examples and validation cases, from public measurements) describe real
// systems: none is outside a plausible range.
TEST(PlausibleRanges, NoBundledScenarioIsImplausible) {
  size_t loaded = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(kSource + "/scenarios")) {
    if (entry.path().extension() != ".yaml") continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("\ncluster:") == std::string::npos && text.rfind("cluster:", 0) != 0) continue;
    Scenario s;
    try {
      s = load_scenario(entry.path().string());
    } catch (const std::exception&) {
      continue;  // a fragment other files include, not a scenario of its own
    }
    ++loaded;
    for (const std::string& w : s.cluster.input_warnings)
      EXPECT_FALSE(has(w, "the plausible")) << entry.path() << ": " << w;
  }
  EXPECT_GT(loaded, 100u);
}

// Through the binary: the summary's warning line and results.json's warnings carry it; it is a
// warning, not an error (exit 0).
TEST(PlausibleRanges, TheSummaryAndResultsJsonCarryTheWarning) {
  const ddpsim::testing::ScratchFolder scratch("ddpsim-plausible-test");
  const std::string out = (scratch.root() / "out").string();
  const auto r = ddpsim::testing::run_program(
      {kBinary, "simulate", kSource + "/scenarios/default.yaml", "--set",
       "cluster.nic.bandwidth=400GB/s", "-o", out, "--no-baseline"},
      scratch);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_TRUE(has(r.out, "warning         cluster.nic.bandwidth 400GB/s is 400 GB/s = 3,200 Gb/s"))
      << r.out;
  std::ifstream in(out + "/results.json");
  const nlohmann::json j = nlohmann::json::parse(in);
  bool found = false;
  for (const auto& w : j["result"]["warnings"])
    found = found || has(w.get<std::string>(), "did you mean 400Gbps");
  EXPECT_TRUE(found) << j["result"]["warnings"].dump();
}

}  // namespace
}  // namespace ddpsim
