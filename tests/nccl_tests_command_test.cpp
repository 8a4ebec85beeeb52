// `ddpsim nccl-tests`: the simulated sweep equals the ring's closed form, the table is printed in
// nccl-tests' own column format and imports back, sizes parse as nccl-tests takes them.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "sim/cost/collective_formulas.h"
#include "sim/cost/nccl_tuning.h"
#include "sim/input/scenario_loader.h"
#include "sim/link_fit/collective_sweep_sim.h"
#include "sim/measurements/nccl_tests_format.h"
#include "sim/measurements/nccl_tests_import.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

// 2 nodes x 4 GPUs, one NIC per node slower than everything else: every ring channel leaves a
// node through it, so the ring is NIC-bound.
const char* kTwoNodes =
    "cluster:\n"
    "  nodes: 2\n"
    "  gpus_per_node: 4\n"
    "  gpu: a100-sxm-80gb\n"
    "  intra_node: {kind: nvswitch, bandwidth: 200GB/s, latency: 1us}\n"
    "  pcie: 24GB/s\n"
    "  nic: {count: 1, bandwidth: 12.5GB/s, latency: 4us}\n"
    "sync: {latency_model: alpha}\n"
    "model: {name: resnet50}\n";

// One H100 node on NVSwitch: the ring is bound by its NVSwitch links.
const char* kOneNode =
    "cluster:\n"
    "  nodes: 1\n"
    "  gpus_per_node: 8\n"
    "  gpu: h100-sxm-80gb\n"
    "  intra_node: {kind: nvswitch, bandwidth: 370GB/s, latency: 2us}\n"
    "  pcie: 50GB/s\n"
    "model: {name: resnet50}\n";

TEST(CollectiveSweepSim, OneNodeRingEqualsItsClosedForm) {
  const Scenario s = parse_scenario_text(kOneNode, "one.yaml", {"sync.latency_model=alpha"});
  const std::vector<double> sizes = nccl_tests_sizes(8, 8.0 * (1 << 30), 4);
  const auto sweep = simulate_collective_sweep(s, CollectiveOp::kAllReduce, sizes);
  ASSERT_EQ(sweep.size(), sizes.size());
  for (const SimulatedCollective& c : sweep) {
    const double expected = ring_allreduce_time(8, c.bytes, 370e9, 2e-6);
    EXPECT_NEAR(c.seconds / expected, 1.0, 1e-6) << c.bytes;
    EXPECT_EQ(c.algorithm, "ring");
  }
}

TEST(CollectiveSweepSim, OneNodeRingUnderNcclsLatencyModelIsNcclsChoiceOverTheLinks) {
  // The default latency model: NCCL's protocol of least predicted time over the ring's links.
  const Scenario s = parse_scenario_text(kOneNode, "one.yaml");
  const NcclSetting setting = nccl_setting(s.cluster, 1);
  const double links_algbw = 370e9 * 8 / (2.0 * 7);
  const std::vector<double> sizes = nccl_tests_sizes(8, 8.0 * (1 << 30), 4);
  const auto sweep = simulate_collective_sweep(s, CollectiveOp::kAllReduce, sizes);
  ASSERT_EQ(sweep.size(), sizes.size());
  for (const SimulatedCollective& c : sweep) {
    const NcclChoice pick =
        nccl_choose(setting, {{NcclAlgorithm::kRing, links_algbw}}, NcclProtocol::kAuto, c.bytes);
    EXPECT_NEAR(c.seconds / pick.time(c.bytes), 1.0, 1e-6) << c.bytes;
  }
}

TEST(CollectiveSweepSim, TwoNodeRingIsNicBoundWithTheLargestLatency) {
  const Scenario s = parse_scenario_text(kTwoNodes, "two.yaml");
  const auto sweep = simulate_collective_sweep(s, CollectiveOp::kAllReduce, {8, 1 << 20, 1 << 30});
  for (const SimulatedCollective& c : sweep)
    EXPECT_NEAR(c.seconds / ring_allreduce_time(8, c.bytes, 12.5e9, 4e-6), 1.0, 1e-6) << c.bytes;
}

TEST(CollectiveSweepSim, ReduceScatterAndAllGatherAreOneRingPass) {
  // nccl-tests' size is the whole buffer: (p-1)/p * S / B_nic + (p-1) alpha.
  const Scenario s = parse_scenario_text(kTwoNodes, "two.yaml");
  for (CollectiveOp op : {CollectiveOp::kReduceScatter, CollectiveOp::kAllGather}) {
    // (From 1 KiB: a flow under a nanosecond, 7 B here, is below SimGrid's time precision.)
    const auto sweep = simulate_collective_sweep(s, op, {1024, 1 << 20, 1 << 30});
    ASSERT_EQ(sweep.size(), 3u);
    for (const SimulatedCollective& c : sweep) {
      EXPECT_NEAR(c.seconds / ring_reduce_scatter_time(8, c.bytes, 12.5e9, 4e-6), 1.0, 1e-6)
          << collective_op_key(op) << " " << c.bytes;
      EXPECT_EQ(c.algorithm, "ring");
    }
  }
}

TEST(CollectiveSweepSim, CollectivesTheModelDoesNotHaveAreRefusedNamingThoseItHas) {
  const Scenario s = parse_scenario_text(kTwoNodes, "two.yaml");
  try {
    simulate_collective_sweep(s, CollectiveOp::kBroadcast, {1024});
    FAIL();
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("the model has no broadcast yet; collectives it "
                                         "simulates: all_reduce, all_gather, reduce_scatter"),
              std::string::npos)
        << e.what();
  }
}

TEST(NcclTestsFormat, SizesParseAsNcclTestsTakesThem) {
  EXPECT_EQ(*parse_nccl_tests_size("8"), 8);
  EXPECT_EQ(*parse_nccl_tests_size("64K"), 65536);
  EXPECT_EQ(*parse_nccl_tests_size("1m"), 1048576);
  EXPECT_EQ(*parse_nccl_tests_size("8G"), 8589934592.0);
  for (const char* bad : {"", "G", "8GB", "-1", "1.5M", "0x10"})
    EXPECT_FALSE(parse_nccl_tests_size(bad)) << bad;
  // -b 8 -e 8G -f 2: 31 sizes; sizes are whole floats (10 B -> 8 B).
  EXPECT_EQ(nccl_tests_sizes(8, 8589934592.0, 2).size(), 31u);
  EXPECT_EQ(nccl_tests_sizes(10, 100, 2).front(), 8);
}

TEST(NcclTestsFormat, RowsHaveNcclTestsColumnsAndImportBack) {
  const std::vector<CollectiveSample> samples = {
      {8, 23.98e-6, 0}, {1048576, 77.42e-6, 0}, {4294967296.0, 0.092563, 0}};
  const std::string table = format_nccl_tests_table(CollectiveOp::kAllReduce, 16, samples);
  // nccl-tests prints "%12li  %12li  %8s  %6s  %6i  %7s  %6.2f  %6.2f  %5s".
  EXPECT_NE(table.find("           8             2     float     sum      -1    23.98    0.00    "
                       "0.00    N/A\n"),
            std::string::npos)
      << table;
  EXPECT_NE(table.find("  4294967296    1073741824     float     sum      -1    92563   46.40   "
                       "87.00    N/A\n"),
            std::string::npos)
      << table;
  const NcclTestsLog log = parse_nccl_tests_log(table, "printed.log");
  ASSERT_EQ(log.samples.size(), 3u);
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(log.samples[i].seconds / samples[i].seconds, 1, 1e-4);
}

// ---------------------------------------------------------------- the command

const testing::ScratchFolder kScratch("ddpsim-nccl-tests-command-test");

TEST(NcclTestsCommand, PrintsAnImportableTableOfTheSimulatedCluster) {
  const fs::path dir = kScratch.fresh("cmd");
  std::ofstream(dir / "two.yaml") << kTwoNodes;
  const testing::ShellRun r =
      testing::run_shell("'" + std::string(DDPSIM_BINARY) + "' nccl-tests '" +
                         (dir / "two.yaml").string() + "' -b 8 -e 1G -f 4");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("#  Rank  7 Group  0 on      node1 device  3 [sim] a100-sxm-80gb\n"),
            std::string::npos)
      << r.output;
  const NcclTestsLog log = parse_nccl_tests_log(r.output, "predicted.log");
  EXPECT_EQ(log.ranks, 8);
  EXPECT_EQ(log.nodes, 2);
  ASSERT_EQ(log.samples.size(), 14u);  // 8 B, 32 B, ... 512 MiB: -f 4 stops below 1 GiB
  for (const CollectiveSample& s : log.samples)
    EXPECT_NEAR(s.seconds / ring_allreduce_time(8, s.bytes, 12.5e9, 4e-6), 1.0, 5e-3) << s.bytes;
}

TEST(NcclTestsCommand, AllGatherRowsFollowNcclTestsColumns) {
  // all_gather_perf: size = the gathered buffer, count = its elements per rank, redop none,
  // algbw = size / time, busbw = algbw * (p-1)/p (nccl-tests doc/PERFORMANCE.md).
  const fs::path dir = kScratch.fresh("all_gather");
  std::ofstream(dir / "two.yaml") << kTwoNodes;
  const testing::ShellRun r =
      testing::run_shell("'" + std::string(DDPSIM_BINARY) + "' nccl-tests '" +
                         (dir / "two.yaml").string() + "' -b 8 -e 1G -f 4 --op all_gather");
  ASSERT_EQ(r.code, 0) << r.output;
  EXPECT_NE(r.output.find("# ddpsim prediction of all_gather_perf -b 8 -e 1073741824 -f 4"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("# all_gather ring (flow mode)\n"), std::string::npos) << r.output;
  const double size = 536870912;  // 512 MiB, the largest size of -f 4 below 1 GiB
  const double seconds = ring_all_gather_time(8, size, 12.5e9, 4e-6);
  const double algbw = size / seconds / 1e9;
  char row[160];
  std::snprintf(row, sizeof row, "%12li  %12li  %8s  %6s  %6i  %7.0f  %6.2f  %6.2f  %5s\n",
                536870912L, 536870912L / 4 / 8, "float", "none", -1, seconds * 1e6, algbw,
                algbw * 7 / 8, "N/A");
  EXPECT_NE(r.output.find(row), std::string::npos) << row << r.output;
}

TEST(NcclTestsCommand, BadSizesAndCollectivesExitTwo) {
  const fs::path dir = kScratch.fresh("bad");
  std::ofstream(dir / "two.yaml") << kTwoNodes;
  const std::string base =
      "'" + std::string(DDPSIM_BINARY) + "' nccl-tests '" + (dir / "two.yaml").string() + "' ";
  testing::ShellRun r = testing::run_shell(base + "-e 8GB");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("-e: expected a size as nccl-tests takes it"), std::string::npos)
      << r.output;
  r = testing::run_shell(base + "--op broadcast -e 1M");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("the model has no broadcast yet"), std::string::npos) << r.output;
}

}  // namespace
}  // namespace ddpsim
