// Whole scenarios through simulate(), one per synchronisation strategy: bytes on the wire equal
// the theoretical volume for each, auto reports its pick per bucket, the alpha-beta table
// replaces link simulation, async PS with staleness 0 is sync PS, and stragglers stall
// synchronous all-reduce but not asynchronous parameter servers.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "sim/cost/collective_formulas.h"
#include "sim/cost/iteration_plan.h"
#include "sim/engine/simulation.h"
#include "sim/model/model_zoo.h"
#include "sim/input/scenario_loader.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

// 2 nodes x 4 GPUs (NVSwitch), one 25 Gbps NIC each; ResNet-50 at batch 32 on V100s.
const char* kBase = R"(
name: strategies
cluster:
  nodes: 2
  gpus_per_node: 4
  gpu: v100-sxm2-16gb
  intra_node: {kind: nvswitch, bandwidth: 150GB/s, latency: 1us}
  pcie: 16GB/s
  nic: {count: 1, bandwidth: 25Gbps, latency: 5us}
  fabric: {kind: leaf-spine, nodes_per_leaf: 16, oversubscription: 1}
model: {name: resnet50}
training: {batch_per_gpu: 32, precision: fp32, optimizer: momentum, iterations: 4, warmup: 1}
sync: {strategy: allreduce, algorithm: ring}
)";

Scenario scenario(std::vector<std::string> overrides, const char* text = kBase) {
  return parse_scenario_text(text, "strategies.yaml", overrides);
}

double gradient_bytes(const Scenario& s) {
  Model m;
  std::string error;
  EXPECT_TRUE(build_model(s.model, &m, &error)) << error;
  return build_iteration_plan(s, m).gradient_bytes;
}

SimulationResult run(const Scenario& s) { return simulate(s, {TraceGpus::none(), false}); }

void expect_relative(double got, double want, double tolerance = 1e-9) {
  EXPECT_NEAR(got, want, tolerance * want) << "relative error " << (got - want) / want;
}

TEST(SyncStrategies, BytesSentEqualReceivedEqualTheTheoreticalVolumePerStep) {
  const Scenario base = scenario({});
  const double g = gradient_bytes(base);
  const int p = 8, nodes = 2, local = 4;
  struct Case {
    std::vector<std::string> set;
    double volume;  // bytes sent by all endpoints per step
  };
  const std::vector<Case> cases = {
      {{"sync.algorithm=ring"}, 2.0 * (p - 1) * g},
      {{"sync.algorithm=tree"}, 2.0 * (p - 1) * g},
      {{"sync.algorithm=auto"}, 2.0 * (p - 1) * g},  // ring and tree both move 2 (p-1) S
      {{"sync.algorithm=halving-doubling"}, halving_doubling_volume(p, g)},
      {{"sync.algorithm=hierarchical"}, p * hierarchical_volume_per_rank(nodes, local, g)},
      // Nodes reduce-scatter and all-gather inside, each node pushes and pulls the model once.
      {{"sync.strategy=ps", "sync.ps.servers=3"},
       2.0 * nodes * g + p * 2.0 * (local - 1) / local * g},
      {{"sync.strategy=ps", "sync.ps.servers=2", "sync.ps.placement=colocated"},
       2.0 * nodes * g + p * 2.0 * (local - 1) / local * g},
      {{"sync.strategy=ps", "sync.ps.servers=2", "sync.ps.mode=async", "sync.ps.staleness=2"},
       2.0 * nodes * g + p * 2.0 * (local - 1) / local * g},
      // Local SGD: the ring every 2nd step of 4.
      {{"sync.strategy=local-sgd", "sync.local_sgd.period=2", "sync.algorithm=tree"},
       2.0 * (p - 1) * g / 2},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.set.front() + (c.set.size() > 1 ? " " + c.set[1] : ""));
    const SimulationResult r = run(scenario(c.set));
    expect_relative(r.bytes_sent, c.volume);
    expect_relative(r.bytes_received, c.volume);
  }
}

TEST(SyncStrategies, AutoReportsItsPickPerBucketSmallOnesByTree) {
  // 16 single-GPU nodes at 25 Gbps, alpha latency model: tree's 2 S/B + 8 alpha beats the
  // ring's 15/8 S/B + 30 alpha below 22 alpha B / (1/8) = 2.75 MB. With 1 MiB buckets
  // ResNet-50's late layers (single 4-9 MB tensors) go by ring, the rest by tree.
  const SimulationResult r =
      run(scenario({"cluster.nodes=16", "cluster.gpus_per_node=1", "sync.algorithm=auto",
                    "sync.bucket_cap=1MiB", "sync.latency_model=alpha"}));
  ASSERT_GT(r.buckets.size(), 2u);
  int trees = 0;
  for (const BucketReport& b : r.buckets) {
    SCOPED_TRACE(b.bytes);
    EXPECT_EQ(b.algorithm, b.bytes < 2.75e6 ? "tree (auto)" : "ring (auto)");
    trees += b.algorithm == "tree (auto)";
  }
  EXPECT_GE(trees, 1);
  EXPECT_LT(trees, static_cast<int>(r.buckets.size()));
}

TEST(SyncStrategies, LocalSgdWithPeriodOneIsDdp) {
  for (const char* algorithm : {"ring", "tree", "hierarchical"}) {
    SCOPED_TRACE(algorithm);
    const std::string a = std::string("sync.algorithm=") + algorithm;
    const SimulationResult ddp = run(scenario({a}));
    const SimulationResult local =
        run(scenario({a, "sync.strategy=local-sgd", "sync.local_sgd.period=1"}));
    expect_relative(local.iteration_time, ddp.iteration_time, 1e-12);
    expect_relative(local.bytes_sent, ddp.bytes_sent, 1e-12);
  }
}

// ---------------------------------------------------------------- alpha-beta tables

std::string write_table(const std::string& name, const std::string& text) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream(path) << text;
  return path;
}

const char* kTable = R"(collectives:
  - op: all_reduce
    algorithm: ring
    fit:
      - {min_bytes: 0, max_bytes: 4194304, alpha: 30e-6, beta: 2e-9}
      - {min_bytes: 4194304, max_bytes: .inf, alpha: 4224.304e-6, beta: 1e-9}
)";

TEST(SyncStrategies, AlphaBetaTableTimesEveryBucketAndIgnoresLinkSpeeds) {
  const std::string table = write_table("ring_table.yaml", kTable);
  const SimulationResult slow = run(scenario({"sync.alpha_beta=" + table}));
  ASSERT_FALSE(slow.buckets.empty());
  for (const BucketReport& b : slow.buckets) {
    SCOPED_TRACE(b.bytes);
    EXPECT_EQ(b.algorithm, "ring (alpha-beta table)");
    const double want = b.bytes < 4194304 ? 30e-6 + 2e-9 * b.bytes : 4224.304e-6 + 1e-9 * b.bytes;
    expect_relative(b.comm_time, want);
  }
  // The measured time replaces the links: a 16x faster NIC changes nothing, bytes still count.
  const SimulationResult fast =
      run(scenario({"sync.alpha_beta=" + table, "cluster.nic.bandwidth=400Gbps"}));
  expect_relative(fast.iteration_time, slow.iteration_time, 1e-12);
  expect_relative(slow.bytes_sent, 2.0 * 7 * gradient_bytes(scenario({})));
}

TEST(SyncStrategies, AlphaBetaTableWithoutTheAlgorithmIsAnInputError) {
  const std::string table = write_table("ring_only.yaml", kTable);
  EXPECT_THROW(run(scenario({"sync.alpha_beta=" + table, "sync.algorithm=tree"})), InputError);
}

// ---------------------------------------------------------------- PS modes and stragglers

// 8 single-GPU nodes and 4 dedicated servers at 100 Gbps: compute-dominated, so stragglers
// show plainly.
const char* kPs = R"(
name: ps-modes
cluster:
  nodes: 8
  gpus_per_node: 1
  gpu: v100-sxm2-16gb
  intra_node: {kind: nvswitch, bandwidth: 150GB/s, latency: 1us}
  pcie: 16GB/s
  nic: {count: 1, bandwidth: 100Gbps, latency: 5us}
  fabric: {kind: leaf-spine, nodes_per_leaf: 16, oversubscription: 1}
model: {name: resnet50}
training: {batch_per_gpu: 32, iterations: 8, warmup: 1}
sync: {strategy: ps, ps: {servers: 4, placement: dedicated, mode: sync}}
)";

TEST(ParameterServerModes, AsyncWithStalenessZeroIsSyncExactly) {
  for (const char* stragglers : {"stragglers.kind=none", "stragglers.kind=lognormal"}) {
    SCOPED_TRACE(stragglers);
    const std::vector<std::string> common = {stragglers, "stragglers.sigma=0.3",
                                             "stragglers.per_iteration=true"};
    auto with = [&](std::vector<std::string> extra) {
      extra.insert(extra.end(), common.begin(), common.end());
      return run(scenario(extra, kPs));
    };
    const SimulationResult sync = with({"sync.ps.mode=sync"});
    const SimulationResult async = with({"sync.ps.mode=async", "sync.ps.staleness=0"});
    expect_relative(async.iteration_time, sync.iteration_time, 1e-12);
    expect_relative(async.samples_per_second, sync.samples_per_second, 1e-12);
    expect_relative(async.breakdown.exposed_comm, sync.breakdown.exposed_comm, 1e-12);
    expect_relative(async.comm_time, sync.comm_time, 1e-12);
    EXPECT_EQ(async.bytes_sent, sync.bytes_sent);
    EXPECT_EQ(async.staleness_max, 0);
    EXPECT_EQ(sync.staleness_max, 0);
  }
}

TEST(ParameterServerModes, StalenessNeverExceedsTheBoundAndIsReachedBehindAStraggler) {
  double previous = 0;
  for (int bound : {0, 1, 2, 3}) {
    SCOPED_TRACE(bound);
    const SimulationResult r =
        run(scenario({"sync.ps.mode=async", "sync.ps.staleness=" + std::to_string(bound),
                      "stragglers.kind=fixed", "stragglers.fixed={5: 2.0}"},
                     kPs));
    EXPECT_EQ(r.staleness_max, bound);  // fast workers run ahead until the bound stops them
    EXPECT_LE(r.staleness_mean, bound);
    EXPECT_GE(r.samples_per_second, previous * (1 - 1e-12));  // a looser bound never hurts
    previous = r.samples_per_second;
  }
}

TEST(Stragglers, SynchronousAllReduceWaitsForTheSlowestWhileAsyncPsDoesNot) {
  const std::vector<std::string> straggler = {"stragglers.kind=fixed", "stragglers.fixed={5: 1.5}"};
  auto pair = [&](std::vector<std::string> set) {
    SimulationResult even = run(scenario(set, kPs));
    set.insert(set.end(), straggler.begin(), straggler.end());
    return std::make_pair(even, run(scenario(set, kPs)));
  };
  // Ring all-reduce: every GPU waits for GPU 5 each step; the step grows by about half the
  // compute time and the others' waiting shows as straggler wait, not as communication.
  const auto [ring, ring_slow] = pair({"sync.strategy=allreduce", "sync.algorithm=ring"});
  const double compute = ring.breakdown.forward + ring.breakdown.backward;
  EXPECT_GE(ring_slow.iteration_time, ring.iteration_time + 0.45 * compute);
  EXPECT_GE(ring_slow.breakdown.straggler_wait, 0.3 * compute);
  EXPECT_LE(ring_slow.breakdown.exposed_comm, ring.breakdown.exposed_comm * 1.1);
  EXPECT_EQ(ring_slow.bottleneck, "straggler-bound");
  // Synchronous PS is no better: the server waits for GPU 5's push.
  const auto [sync, sync_slow] = pair({"sync.ps.mode=sync"});
  EXPECT_LE(sync_slow.samples_per_second, 0.75 * sync.samples_per_second);
  // Async PS without a binding bound: the seven others keep their pace, throughput loses only
  // GPU 5's missing third: (7 + 1/1.5) / 8 of the even run.
  const auto [async, async_slow] = pair({"sync.ps.mode=async", "sync.ps.staleness=100"});
  EXPECT_GE(async_slow.samples_per_second, 0.97 * (7 + 1 / 1.5) / 8 * async.samples_per_second);
  EXPECT_LE(async_slow.samples_per_second, async.samples_per_second);
  EXPECT_GE(async_slow.staleness_max, 1);
}

TEST(ParameterServerModes, GradientAccumulationPushesOncePerStep) {
  const SimulationResult one = run(scenario({}, kPs));
  const SimulationResult four = run(scenario({"training.gradient_accumulation=4"}, kPs));
  expect_relative(four.bytes_sent, one.bytes_sent, 1e-12);
  EXPECT_GT(four.samples_per_second, one.samples_per_second);
}

// ---------------------------------------------------------------- ddpsim compare

using Command = testing::ShellRun;
using testing::run_shell;

TEST(CompareCommand, EachCellIsTheSimulationOfItsOverrides) {
  const std::string scenario = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/sync-comparison.yaml";
  const std::string csv = ::testing::TempDir() + "compare.csv";
  const Command c = run_shell(std::string(DDPSIM_BINARY) + " compare " + scenario +
                              " --set cluster.nodes=2 --nic 10Gbps,100Gbps"
                              " --strategies ring,ps:2:colocated -o " +
                              csv);
  ASSERT_EQ(c.code, 0) << c.output;
  EXPECT_NE(c.output.find("ring"), std::string::npos);
  EXPECT_NE(c.output.find("ps:2:colocated"), std::string::npos);
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);  // header
  int cells = 0;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(x);
    ASSERT_GE(f.size(), 5u) << line;
    std::vector<std::string> set = {"cluster.nodes=2", "model.name=" + f[0],
                                    "cluster.nic.bandwidth=" + f[1]};
    if (f[2] == "ring") {
      set.insert(set.end(), {"sync.strategy=allreduce", "sync.algorithm=ring"});
    } else {
      set.insert(set.end(),
                 {"sync.strategy=ps", "sync.ps.servers=2", "sync.ps.placement=colocated"});
    }
    const SimulationResult r = run(load_scenario(scenario, set));
    expect_relative(std::stod(f[4]), r.samples_per_second, 1e-5);
    ++cells;
  }
  EXPECT_EQ(cells, 4);
}

TEST(CompareCommand, UnknownStrategyIsABadInputNamingTheChoices) {
  const std::string scenario = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/sync-comparison.yaml";
  for (const char* token : {"rings", "ps:0", "ps:2:nearby", "local-sgd:x", "local-sgd:0",
                            "byteps:x", "byteps:1:2", "horovod:64MiB", "priority:4"}) {
    SCOPED_TRACE(token);
    const Command c =
        run_shell(std::string(DDPSIM_BINARY) + " compare " + scenario + " --strategies " + token);
    EXPECT_EQ(c.code, 2) << c.output;
    EXPECT_NE(c.output.find("<--strategies " + std::string(token) + ">"), std::string::npos)
        << c.output;
    EXPECT_NE(c.output.find("halving-doubling"), std::string::npos) << c.output;
  }
}

}  // namespace
}  // namespace ddpsim
