// A measured all-reduce table used by a scenario: refused when the buckets leave its measured
// sizes, warned about at another GPU count, node count or GPU type, in the summary and in
// results.json.
#include "sim/measurements/alpha_beta_use.h"

#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>

#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/scenario/gpu_aliases.h"
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

// ---------------------------------------------------------------- read once, by the loader

// A scenario of 2 nodes x 8 GPUs whose all-reduce is the table at `table`.
std::string table_scenario(int nodes) {
  return "cluster:\n"
         "  nodes: " +
         std::to_string(nodes) +
         "\n"
         "  gpus_per_node: 8\n"
         "  gpu: a100-sxm-80gb\n"
         "  intra_node: {kind: nvswitch, bandwidth: 230GB/s}\n"
         "  pcie: 24GB/s\n"
         "  nic: {count: 1, bandwidth: 100Gbps}\n"
         "model: {name: resnet50}\n"
         "training: {iterations: 2}\n"
         "sync: {alpha_beta: t.yaml}\n";
}

void write_table(const fs::path& path, double beta) {
  CalibrationProfile p;
  CollectiveSweep t = table(16, 2, "NVIDIA A100-SXM4-80GB", 1 << 30);
  t.fit[0].beta = beta;
  p.collectives.push_back(t);
  write_profile(p, path.string());
}

// The table is parsed once, by the loader, into the typed scenario: the engine builds its
// all-reduce from that value, so a table removed after loading changes nothing, and every copy
// of the scenario (sweep points, uncertainty draws) shares it.
TEST(AlphaBetaTable, IsReadOnceAtLoadNotByTheEngine) {
  const fs::path dir = kScratch.fresh("read-once");
  write_table(dir / "t.yaml", 1e-10);
  const Scenario s = parse_scenario_text(table_scenario(2), (dir / "s.yaml").string());
  ASSERT_NE(s.sync.alpha_beta_file, nullptr);
  const auto& all_reduce = s.sync.alpha_beta_file->sweeps.at(CollectiveOp::kAllReduce);
  ASSERT_EQ(all_reduce.count(AllReduceAlgorithm::kAuto), 1u);
  EXPECT_EQ(all_reduce.at(AllReduceAlgorithm::kAuto).fit[0].beta, 1e-10);
  SimOptions options;
  options.baseline = false;
  const SimulationResult with_file = simulate(s, options);
  ASSERT_TRUE(fs::remove(dir / "t.yaml"));  // gone: nothing may read it again

  const Scenario copy = s;
  EXPECT_EQ(copy.sync.alpha_beta_file, s.sync.alpha_beta_file);
  const SimulationResult without_file = simulate(copy, options);
  EXPECT_EQ(without_file.iteration_time, with_file.iteration_time);
  EXPECT_EQ(without_file.comm_time, with_file.comm_time);

  // The typed table is what the engine charges: a table 100x slower per byte, loaded the same
  // way, makes the step longer (so the equality above is the table's, not the links').
  write_table(dir / "t.yaml", 1e-8);
  const Scenario slow = parse_scenario_text(table_scenario(2), (dir / "s.yaml").string());
  EXPECT_GT(simulate(slow, options).comm_time, 10 * with_file.comm_time);
}

// A broken table is refused by the loader at its own line and column, before anything is
// simulated: also on one GPU, where the engine would never charge a collective from it.
TEST(AlphaBetaTable, ABrokenTableIsRefusedAtLoad) {
  const fs::path dir = kScratch.fresh("broken");
  std::ofstream(dir / "t.yaml") << "collectives:\n"
                                   "  - op: all_reduce\n"
                                   "    algorithm: ring\n"
                                   "    gpus: 8\n"
                                   "    fit: [ { min_bytes: 0, max_bytes: .inf, alpha: 1e-5, "
                                   "beta: -1e-10 } ]\n";
  for (int nodes : {1, 2}) {
    std::string text = table_scenario(nodes);
    if (nodes == 1) text.replace(text.find("gpus_per_node: 8"), 16, "gpus_per_node: 1");
    try {
      parse_scenario_text(text, (dir / "s.yaml").string());
      ADD_FAILURE() << "a negative beta was accepted (" << nodes << " node(s))";
    } catch (const InputError& e) {
      EXPECT_EQ(e.where().file, (dir / "t.yaml").string());
      EXPECT_EQ(e.where().line, 5);
      EXPECT_GT(e.where().column, 0);
      EXPECT_NE(std::string(e.what()).find("must be >= 0, got -1e-10"), std::string::npos)
          << e.what();
    }
  }
  // Two all_reduce tables of one algorithm on the same GPU count: ambiguous, refused at load.
  std::ofstream(dir / "t.yaml") << "collectives:\n"
                                   "  - {op: all_reduce, algorithm: ring, gpus: 16,\n"
                                   "     fit: [{min_bytes: 0, max_bytes: .inf, alpha: 1e-5, "
                                   "beta: 1e-10}]}\n"
                                   "  - {op: all_reduce, algorithm: ring, gpus: 16,\n"
                                   "     fit: [{min_bytes: 0, max_bytes: .inf, alpha: 2e-5, "
                                   "beta: 1e-10}]}\n";
  try {
    parse_scenario_text(table_scenario(2), (dir / "s.yaml").string());
    ADD_FAILURE() << "two ring tables on 16 GPUs were accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().to_string(), (dir / "t.yaml").string() + ":4:5") << e.what();
  }
}

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
