// A measured all-reduce table used by a scenario: refused when the buckets leave its measured
// sizes, warned about at another GPU count, node count or GPU type, in the summary and in
// results.json.
#include "sim/profile/alpha_beta_use.h"

#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "sim/profile/profile_yaml.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

CollectiveSweep table(int gpus, int nodes, const std::string& device, double max_bytes) {
  CollectiveSweep s;
  s.gpus = gpus;
  s.nodes = nodes;
  s.device = device;
  for (double b = 8; b <= max_bytes; b *= 4) s.samples.push_back({b, 2e-5 + b * 1e-10, 0});
  s.fit = {{0, std::numeric_limits<double>::infinity(), 2e-5, 1e-10}};
  return s;
}

ClusterSpec cluster(int nodes, int gpus_per_node, const std::string& gpu) {
  ClusterSpec c;
  c.nodes = nodes;
  c.gpus_per_node = gpus_per_node;
  c.gpu.name = gpu;
  return c;
}

const SourceLocation kWhere{"s.yaml", 12, 15};

TEST(AlphaBetaUse, BucketsBeyondTheMeasuredSizesAreRefusedAtTheScenarioKey) {
  // Sizes 8 B, 32 B, ... 512 KiB (nccl-tests -b 8 -e 512K -f 4).
  const CollectiveSweep t = table(16, 2, "NVIDIA A100-SXM4-80GB", 1 << 19);
  try {
    check_alpha_beta_use(t, cluster(2, 8, "a100-sxm-80gb"), {1 << 20, 25 << 20}, "t.yaml", kWhere);
    FAIL() << "a 25 MiB bucket was extrapolated";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().to_string(), "s.yaml:12:15");
    EXPECT_NE(e.message().find("was measured from 8.00 B to 512 KiB"), std::string::npos)
        << e.message();
    EXPECT_NE(e.message().find("buckets of 1.00 MiB to 25.0 MiB"), std::string::npos)
        << e.message();
    EXPECT_NE(e.message().find("nccl-tests -e 25.0 MiB"), std::string::npos) << e.message();
  }
  // Below the smallest measured size is refused too.
  CollectiveSweep from_1m = t;
  from_1m.samples.erase(from_1m.samples.begin(), from_1m.samples.end() - 1);
  EXPECT_THROW(
      check_alpha_beta_use(from_1m, cluster(2, 8, "a100-sxm-80gb"), {4096}, "t.yaml", kWhere),
      InputError);
}

TEST(AlphaBetaUse, TheMeasuredMachineGivesNoWarning) {
  const CollectiveSweep t = table(16, 2, "NVIDIA A100-SXM4-80GB", 1 << 30);
  EXPECT_TRUE(
      check_alpha_beta_use(t, cluster(2, 8, "a100-sxm-80gb"), {1 << 20, 25 << 20}, "t.yaml", kWhere)
          .empty());
  // A40GB and 80GB A100 are one family; the table only says "A100".
  EXPECT_TRUE(
      check_alpha_beta_use(t, cluster(2, 8, "a100-sxm-40gb"), {1 << 20}, "t.yaml", kWhere).empty());
}

TEST(AlphaBetaUse, AnotherScaleOrGpuTypeIsAWarning) {
  const CollectiveSweep t = table(16, 2, "Tesla T4", 1 << 30);
  const std::vector<std::string> w =
      check_alpha_beta_use(t, cluster(8, 8, "h100-sxm-80gb"), {1 << 20}, "t.yaml", kWhere);
  ASSERT_EQ(w.size(), 2u);
  EXPECT_NE(w[0].find("measured on 16 GPUs (2 nodes) and is used for 64 GPUs (8 nodes)"),
            std::string::npos)
      << w[0];
  EXPECT_NE(w[1].find("measured on Tesla T4 and is used for h100-sxm-80gb"), std::string::npos)
      << w[1];
}

TEST(AlphaBetaUse, ATableThatDoesNotSayWhereItWasMeasuredIsAWarning) {
  const CollectiveSweep t = table(0, 0, "", 1 << 30);
  const std::vector<std::string> w =
      check_alpha_beta_use(t, cluster(2, 8, "a100-sxm-80gb"), {1 << 20}, "t.yaml", kWhere);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_NE(w[0].find("does not record where it was measured"), std::string::npos) << w[0];
}

TEST(GpuFamily, NamesFromLogsAndPresetsMeetOnTheChip) {
  EXPECT_EQ(gpu_family("NVIDIA A100-SXM4-80GB"), "a100");
  EXPECT_EQ(gpu_family("a100-pcie-40gb"), "a100");
  EXPECT_EQ(gpu_family("NVIDIA A10"), "a10");
  EXPECT_EQ(gpu_family("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(gpu_family("Tesla V100-SXM2-16GB"), "v100");
  EXPECT_EQ(gpu_family("NVIDIA L40S"), "l40s");
  EXPECT_EQ(gpu_family("l4"), "l4");
  EXPECT_EQ(gpu_family("NVIDIA GeForce RTX 2080 Ti"), "2080ti");
  EXPECT_EQ(gpu_family("rtx-2080-ti"), "2080ti");
  EXPECT_EQ(gpu_family("custom"), "");
}

// ---------------------------------------------------------------- through the binary

const testing::ScratchFolder kScratch("ddpsim-alpha-beta-use-test");

TEST(AlphaBetaUseCli, AWarningReachesTheSummaryAndResultsJson) {
  const fs::path dir = kScratch.fresh("warn");
  // A table measured on 16 A100s over 2 nodes, 8 B .. 1 GiB, used on 4 nodes of V100s.
  CalibrationProfile p;
  CollectiveSweep t = table(16, 2, "NVIDIA A100-SXM4-80GB", 1 << 30);
  t.algorithm = AllReduceAlgorithm::kAuto;
  p.collectives.push_back(t);
  write_profile(p, (dir / "t.yaml").string());
  std::ofstream(dir / "s.yaml") << "cluster:\n"
                                   "  nodes: 4\n"
                                   "  gpus_per_node: 4\n"
                                   "  gpu: v100-sxm2-16gb\n"
                                   "  intra_node: {kind: nvlink-mesh, bandwidth: 150GB/s}\n"
                                   "  pcie: 16GB/s\n"
                                   "  nic: {count: 1, bandwidth: 100Gbps}\n"
                                   "model: {name: resnet50}\n"
                                   "training: {iterations: 2}\n"
                                   "sync: {alpha_beta: t.yaml}\n";
  const testing::ShellRun r = testing::run_shell("'" + std::string(DDPSIM_BINARY) + "' simulate '" +
                                                 (dir / "s.yaml").string() + "' -o '" +
                                                 (dir / "out").string() + "' --no-baseline");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("warning         the all_reduce table " + (dir / "t.yaml").string() +
                          " was measured on 16 GPUs (2 nodes) and is used for 16 GPUs (4 nodes)"),
            std::string::npos)
      << r.output;
  // Collectives charged from the table take no link time: no utilisation or busy time is made
  // up for the links they are counted on (it read "109.5 % (0.000 ms busy)"), and the summary
  // says why none is printed.
  EXPECT_NE(r.output.find("busiest links   none timed: collectives charged from the alpha-beta "
                          "table take no link time\n"),
            std::string::npos)
      << r.output;
  EXPECT_EQ(r.output.find("ms busy)"), std::string::npos) << r.output;
  const auto doc = nlohmann::json::parse(testing::read_text(dir / "out" / "results.json"));
  const auto& links = doc.at("result").at("links");
  EXPECT_TRUE(links.at("busiest").empty()) << links.at("busiest").dump();
  EXPECT_GT(links.at("classes").at("nic").at("bytes_per_step").get<double>(), 0);
  EXPECT_EQ(links.at("classes").at("nic").at("utilisation_max").get<double>(), 0);
  const auto& warnings = doc.at("result").at("warnings");
  ASSERT_EQ(warnings.size(), 2u) << doc.at("result").dump();
  EXPECT_NE(warnings[1].get<std::string>().find("measured on NVIDIA A100-SXM4-80GB and is used "
                                                "for v100-sxm2-16gb"),
            std::string::npos);
}

}  // namespace
}  // namespace ddpsim
