// The symmetric scope (sim/cost/symmetry.h, docs/scale.md): a slice of whole leaves simulated
// with the rest folded in must give every GPU the timeline of the full simulation. Each case runs
// both scopes on the same scenario and compares the iteration time and every breakdown item;
// a control shows that the slice without the fold (simulated as a cluster of its own) is far off,
// so the agreement is the fold's doing. Which scenarios may fold, and the errors of a forced
// symmetric scope, are checked without simulating.
#include "sim/cost/symmetry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/cost/effective_scenario.h"
#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "sim/results/result_json.h"
#include "sim/text/input_error.h"
#include "tests/scope_agreement.h"

namespace ddpsim {
namespace {

// 8 GPUs and 8 NICs per node; nodes and nodes_per_leaf come from each size below.
const char* kCluster = R"(name: symmetry
cluster:
  nodes: 8
  gpus_per_node: 8
  gpu: a100-sxm-40gb
  intra_node: {kind: nvswitch, bandwidth: 300GB/s, latency: 1us}
  pcie: 32GB/s
  cpu_cores: 48
  nic: {count: 8, bandwidth: 200Gbps, latency: 2us}
  fabric: {kind: leaf-spine, nodes_per_leaf: 2, oversubscription: 1}
model: {name: resnet50}
training: {batch_per_gpu: 64, precision: fp16, optimizer: momentum, iterations: 3, warmup: 1}
sync: {strategy: allreduce, algorithm: ring, bucket_cap: 25MiB, overlap: true}
compute: {mode: roofline, efficiency: 0.45}
)";

// Data loading from a shared store whose aggregate bandwidth binds (data_wait dominates).
const std::vector<std::string> kSharedStore = {"data.synthetic=false",
                                               "data.sample_bytes=110KB",
                                               "data.decoded_bytes=150528B",
                                               "data.storage.kind=shared",
                                               "data.storage.bandwidth=20GB/s",
                                               "data.storage.client_bandwidth=2GB/s",
                                               "data.storage.client_shares_nic=true",
                                               "data.decode.samples_per_core=400",
                                               "data.decode.workers_per_gpu=6"};

Scenario scenario(std::vector<std::string> overrides) {
  return parse_scenario_text(kCluster, "symmetry.yaml", overrides);
}

SimulationResult run(const Scenario& s) { return simulate(s, {TraceGpus::none(), false}); }

struct Size {
  int nodes;
  int nodes_per_leaf;
  int slice_nodes;  // what symmetry_obstacle must choose (two leaves, or 2-4 nodes of one)
};

struct Case {
  std::string name;
  std::vector<std::string> overrides;
  bool whole_leaves = false;  // trees (NVLS too), parameter servers, a shared store
};

// The slice symmetry_obstacle must choose: 2 nodes of each of 2 leaves (each keeping the whole
// leaf's uplink) where only ring-shaped calls cross the fabric, else `size.slice_nodes`.
int expected_slice(const Case& c, const Size& size) {
  if (c.whole_leaves || size.nodes <= size.nodes_per_leaf) return size.slice_nodes;
  return 2 * std::min(2, size.nodes_per_leaf);
}

std::vector<std::string> with_size(const Size& size, std::vector<std::string> overrides) {
  overrides.push_back("cluster.nodes=" + std::to_string(size.nodes));
  overrides.push_back("cluster.fabric.nodes_per_leaf=" + std::to_string(size.nodes_per_leaf));
  return overrides;
}

class SymmetricMatchesFull : public ::testing::TestWithParam<std::tuple<Case, Size>> {};

TEST_P(SymmetricMatchesFull, IterationTimeAndEveryBreakdownItem) {
  const auto& [c, size] = GetParam();
  std::vector<std::string> overrides = with_size(size, c.overrides);
  overrides.push_back("simulation.scope=full");
  const Scenario full = scenario(overrides);
  overrides.back() = "simulation.scope=symmetric";
  const Scenario sym = scenario(overrides);

  int slice = 0;
  ASSERT_EQ(symmetry_obstacle(sym, &slice), "");
  ASSERT_EQ(slice, expected_slice(c, size));
  ASSERT_LT(slice, size.nodes);

  const SimulationResult f = run(full), s = run(sym);
  expect_scopes_agree(s, f);
  // The items this scenario is about must be there to compare.
  EXPECT_GT(f.breakdown.exposed_comm + f.breakdown.data_wait, 0);
  // Ring-shaped traffic: every link class carries the cluster's bytes, the fabric's included
  // (a slice of cut leaves crosses 2 of the cluster's leaf boundaries; docs/scale.md for trees).
  if (!c.whole_leaves) {
    for (size_t k = 0; k < kLinkClassNames.size(); ++k)
      EXPECT_LE(rel(s.bytes_per_link_class[k], f.bytes_per_link_class[k]), 1e-9)
          << kLinkClassNames[k] << ": " << s.bytes_per_link_class[k] << " vs "
          << f.bytes_per_link_class[k];
  }
  std::printf("[ agreement ] %-28s %4d GPUs: iteration %.6g s, symmetric off by %.2e\n",
              c.name.c_str(), f.gpus, f.iteration_time, rel(s.iteration_time, f.iteration_time));
}

const std::vector<Case> kCases = {
    {"ring", {}},
    {"ring-alpha-latency", {"sync.latency_model=alpha"}},
    {"tree", {"sync.algorithm=tree"}, true},
    {"hierarchical", {"sync.algorithm=hierarchical"}},
    {"auto", {"sync.algorithm=auto"}, true},
    {"nvls-h100", {"cluster.gpu=h100-sxm-80gb", "sync.algorithm=nvls"}, true},
    {"ring-oversubscribed-16", {"cluster.fabric.oversubscription=16"}},
    {"hierarchical-oversubscribed-16",
     {"sync.algorithm=hierarchical", "cluster.fabric.oversubscription=16"}},
    {"local-sgd", {"sync.strategy=local-sgd", "sync.local_sgd.period=2"}},
    {"shared-store", kSharedStore, true},
    {"ps-dedicated", {"sync.strategy=ps", "sync.ps.servers=4"}, true},
    {"ps-worker-update-oversubscribed-4",
     {"sync.strategy=ps", "sync.ps.servers=2", "sync.ps.update=worker",
      "sync.ps.server_bandwidth=400Gbps", "cluster.fabric.oversubscription=4"},
     true},
};

// 64 GPUs in 4 leaves, 512 GPUs in 8 leaves: two leaves run.
INSTANTIATE_TEST_SUITE_P(Leaves, SymmetricMatchesFull,
                         ::testing::Combine(::testing::ValuesIn(kCases),
                                            ::testing::Values(Size{8, 2, 4}, Size{64, 8, 16})),
                         [](const auto& info) {
                           std::string name = std::get<0>(info.param).name + "_" +
                                              std::to_string(std::get<1>(info.param).nodes * 8) +
                                              "gpus";
                           for (char& ch : name)
                             if (ch == '-') ch = '_';
                           return name;
                         });

// One leaf (a flat switch): the ring folds onto 2 nodes, the trees onto 4 (the busiest node of
// a double binary tree has 4 neighbours from 4 nodes on).
INSTANTIATE_TEST_SUITE_P(
    OneLeaf, SymmetricMatchesFull,
    ::testing::Values(std::make_tuple(Case{"ring", {}}, Size{8, 16, 2}),
                      std::make_tuple(Case{"tree", {"sync.algorithm=tree"}, true}, Size{64, 64, 4}),
                      std::make_tuple(Case{"hierarchical", {"sync.algorithm=hierarchical"}},
                                      Size{64, 64, 2})),
    [](const auto& info) {
      return std::get<0>(info.param).name + "_" +
             std::to_string(std::get<1>(info.param).nodes * 8) + "gpus";
    });

// The shared store at 4096 GPUs, with its aggregate bandwidth scaled to bind as at 512.
std::vector<std::string> shared_store_4096() {
  std::vector<std::string> o = kSharedStore;
  o.push_back("data.storage.bandwidth=160GB/s");
  return o;
}

// 4096 GPUs, 16 leaves of 32 nodes: the sizes auto starts folding at (the tree's full run takes
// over a minute here: ddpsim bench --vs-full and docs/scale.md cover it).
INSTANTIATE_TEST_SUITE_P(
    Large, SymmetricMatchesFull,
    ::testing::Values(
        std::make_tuple(Case{"ring", {}}, Size{512, 32, 64}),
        std::make_tuple(Case{"hierarchical-oversubscribed-16",
                             {"sync.algorithm=hierarchical", "cluster.fabric.oversubscription=16"}},
                        Size{512, 32, 64}),
        std::make_tuple(Case{"shared-store", shared_store_4096(), true}, Size{512, 32, 64})),
    [](const auto& info) {
      std::string name = std::get<0>(info.param).name + "_4096gpus";
      for (char& ch : name)
        if (ch == '-') ch = '_';
      return name;
    });

// ---------------------------------------------------------------- drawn stragglers

// Stragglers drawn per GPU fold in expectation (slice_scenario): GPU 0 runs the expected slowest
// of the cluster's N draws, the others the mean of the rest, the same for every seed. A full run
// draws N factors from its seed, so its iteration time is that of one sample of the slowest:
// the symmetric result is compared with the mean of full runs over kSeeds seeds. Tolerance per
// item: 1 % (the issue's), or 3 standard errors of that mean where the seeds' own spread is
// larger (the slowest of 64 lognormal draws varies by several % from seed to seed; with the
// seeds fixed the test is deterministic).
constexpr int kSeeds = 8;

struct StragglerCase {
  std::string name;
  std::vector<std::string> overrides;
  Size size;
};

class SymmetricStragglers : public ::testing::TestWithParam<StragglerCase> {};

TEST_P(SymmetricStragglers, MatchTheFullRunsMeanOverSeeds) {
  const StragglerCase& c = GetParam();
  std::vector<std::string> overrides = with_size(c.size, c.overrides);
  overrides.push_back("simulation.scope=symmetric");
  const SimulationResult s = run(scenario(overrides));
  EXPECT_NE(s.notes.find("stragglers: expected slowest of " + std::to_string(s.gpus) +
                         " draws (order statistics)"),
            std::string::npos)
      << s.notes;

  overrides.back() = "simulation.scope=full";
  auto items = [](const SimulationResult& r) {
    const Breakdown& b = r.breakdown;
    return std::vector<double>{r.iteration_time, r.comm_time, b.data_wait,
                               b.forward,        b.backward,  b.exposed_comm,
                               b.straggler_wait, b.optimizer, r.slowest_gpu.forward};
  };
  const std::vector<std::string> names = {"iteration",      "comm",      "data_wait",
                                          "forward",        "backward",  "exposed",
                                          "straggler_wait", "optimizer", "slowest forward"};
  std::vector<double> sum(names.size(), 0), sum2(names.size(), 0);
  for (int seed = 1; seed <= kSeeds; ++seed) {
    overrides.push_back("seed=" + std::to_string(seed));
    const std::vector<double> v = items(run(scenario(overrides)));
    overrides.pop_back();
    for (size_t i = 0; i < v.size(); ++i) {
      sum[i] += v[i];
      sum2[i] += v[i] * v[i];
    }
  }
  const std::vector<double> got = items(s);
  // With draws per iteration the full run's slowest GPU (largest compute over the measured
  // steps) is the largest mean of several draws, not the slowest of one step: not compared.
  const size_t compared =
      scenario(overrides).stragglers.per_iteration ? names.size() - 1 : names.size();
  for (size_t i = 0; i < compared; ++i) {
    const double mean = sum[i] / kSeeds;
    const double var = std::max(sum2[i] / kSeeds - mean * mean, 0.0) * kSeeds / (kSeeds - 1);
    const double se = std::sqrt(var / kSeeds);
    const double tolerance = std::max({kAgreement * std::fabs(mean), 3 * se, 1e-9});
    EXPECT_NEAR(got[i], mean, tolerance) << names[i] << " (se " << se << ")";
    std::printf(
        "[ stragglers ] %-24s %4d GPUs %-15s symmetric %.6g, full mean %.6g +- %.2g (%+.2f %%)\n",
        c.name.c_str(), s.gpus, names[i].c_str(), got[i], mean, se,
        mean != 0 ? 100 * (got[i] - mean) / mean : 0.0);
  }
}

const std::vector<std::string> kUniform = {"stragglers.kind=uniform", "stragglers.max=1.3"};
const std::vector<std::string> kLognormal = {"stragglers.kind=lognormal", "stragglers.sigma=0.1"};
std::vector<std::string> per_iteration(std::vector<std::string> o) {
  o.push_back("stragglers.per_iteration=true");
  o.push_back("training.iterations=6");
  return o;
}
std::vector<std::string> plus(std::vector<std::string> a, const std::vector<std::string>& b) {
  a.insert(a.end(), b.begin(), b.end());
  return a;
}

INSTANTIATE_TEST_SUITE_P(
    Drawn, SymmetricStragglers,
    ::testing::Values(
        StragglerCase{"uniform", kUniform, {8, 2, 4}},
        StragglerCase{"lognormal", kLognormal, {8, 2, 4}},
        StragglerCase{"lognormal_per_iteration", per_iteration(kLognormal), {8, 2, 4}},
        StragglerCase{
            "uniform_hierarchical", plus(kUniform, {"sync.algorithm=hierarchical"}), {8, 2, 4}},
        StragglerCase{"lognormal_shared_store",
                      plus(plus(kLognormal, kSharedStore), {"data.storage.bandwidth=2.5GB/s"}),
                      {8, 2, 4}},
        StragglerCase{"lognormal_local_sgd",
                      plus(kLognormal, {"sync.strategy=local-sgd", "sync.local_sgd.period=2"}),
                      {8, 2, 4}},
        StragglerCase{"uniform", kUniform, {64, 8, 16}},
        StragglerCase{"lognormal", kLognormal, {64, 8, 16}},
        // 16 leaves of 32 nodes: a full run takes 4-10 s here, 8 of them.
        StragglerCase{"lognormal", kLognormal, {512, 32, 64}}),
    [](const auto& info) {
      return info.param.name + "_" + std::to_string(info.param.size.nodes * 8) + "gpus";
    });

TEST(Symmetry, TheSliceWithoutTheFoldIsFarOff) {
  // The 16 nodes symmetric runs, simulated as a cluster of their own: a ring of 128 GPUs
  // instead of 512 (fewer latency steps, other NCCL tuning). What makes the slice agree with the
  // full cluster is the fold, not the slice.
  const Size size{64, 8, 16};
  const SimulationResult full = run(scenario(with_size(size, {"simulation.scope=full"})));
  const SimulationResult alone =
      run(scenario({"cluster.nodes=16", "cluster.fabric.nodes_per_leaf=8"}));
  EXPECT_GT(rel(alone.iteration_time, full.iteration_time), 0.05)
      << alone.iteration_time << " vs " << full.iteration_time;
}

TEST(Symmetry, SameInputSameOutput) {
  const Scenario s = scenario(with_size({64, 8, 16}, {"simulation.scope=symmetric"}));
  EXPECT_EQ(result_to_json(run(s)).dump(), result_to_json(run(s)).dump());
}

TEST(Symmetry, TracingAGpuOutsideTheSliceIsAnInputError) {
  const Scenario s = scenario(with_size({64, 8, 16}, {"simulation.scope=symmetric"}));
  TraceGpus outside{TraceGpus::Kind::kList, {300}};
  try {
    simulate(s, {outside, false});
    FAIL() << "expected an input error";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("--trace-gpus: GPU 300 is not simulated: the symmetric scope runs "
                               "GPUs 0-31 of 512"),
              std::string::npos)
        << e.message();
  }
  // The slice's own GPUs (2 nodes of each of 2 leaves) trace as usual.
  const SimulationResult r = simulate(s, {TraceGpus{TraceGpus::Kind::kList, {31}}, false});
  EXPECT_EQ(r.traced_gpus, std::vector<int>{31});
}

// Why colocated servers do not fold (docs/scale.md): with a server on each of 64 nodes,
// ResNet-50's 28 partitions land on 28 of them, so the nodes are not alike: some NICs take
// every worker's pushes of a partition, the others only their own GPUs' pulls. No two leaves
// stand for them all.
TEST(Symmetry, ColocatedServersMakeTheNodesUnlike) {
  const SimulationResult r =
      run(scenario(with_size({64, 8, 16}, {"sync.strategy=ps", "sync.ps.placement=colocated",
                                           "sync.ps.servers=64", "simulation.scope=full"})));
  const auto& groups = r.links.node_groups;
  const size_t rx = std::find(groups.begin(), groups.end(), "nic rx") - groups.begin();
  ASSERT_LT(rx, groups.size());
  ASSERT_EQ(r.links.per_node.size(), 64u);
  double least = 1e300, most = 0;
  for (const auto& node : r.links.per_node) {
    least = std::min(least, node[rx]);
    most = std::max(most, node[rx]);
  }
  std::printf("[ colocated ] 64 nodes, 64 servers: NIC rx utilisation %.3g to %.3g\n", least, most);
  EXPECT_GT(most, 2 * least);
}

// ---------------------------------------------------------------- which scenarios fold

// 512 GPUs in 8 leaves, then `overrides` (which may change the size).
std::string obstacle(const std::vector<std::string>& overrides) {
  std::vector<std::string> all = with_size({64, 8, 16}, {});
  all.insert(all.end(), overrides.begin(), overrides.end());
  int slice = 0;
  return symmetry_obstacle(scenario(all), &slice);
}

TEST(SymmetryEligibility, PerGpuRandomnessAndUnfoldedStrategiesRunFull) {
  EXPECT_EQ(obstacle({}), "");
  EXPECT_EQ(obstacle({"stragglers.sigma=0.1"}), "");  // folds as the slowest of N draws
  EXPECT_EQ(obstacle({"stragglers.kind=uniform", "stragglers.max=2"}), "");
  EXPECT_EQ(obstacle({"stragglers.fixed={3: 1.5}"}), "stragglers set on single GPUs");
  EXPECT_NE(obstacle({"sync.strategy=ps", "sync.ps.placement=colocated"}).find("colocated"),
            std::string::npos);
  EXPECT_NE(obstacle({"sync.strategy=ps", "sync.ps.placement=byteps"}).find("BytePS"),
            std::string::npos);
  EXPECT_NE(obstacle({"sync.strategy=ps", "sync.ps.mode=async"}).find("asynchronous"),
            std::string::npos);
  EXPECT_EQ(obstacle({"sync.strategy=ps"}), "");  // dedicated, synchronous: folds
  EXPECT_EQ(obstacle({"sync.mode=chunked"}), "chunked collective mode");
  EXPECT_NE(obstacle({"sync.algorithm=halving-doubling"}).find("halving-doubling"),
            std::string::npos);
  EXPECT_NE(obstacle({"sync.schedule=priority"}).find("priority"), std::string::npos);
  EXPECT_EQ(obstacle({"cluster.nodes=60"}), "the last leaf is partial (60 nodes, 8 per leaf)");
  EXPECT_NE(obstacle({"sync.algorithm=tree", "cluster.fabric.oversubscription=2"}).find("tree"),
            std::string::npos);
  // One leaf folds onto 16 GPUs: the expected slowest of 512 draws at sigma 2 (near the clamp)
  // is more than those 16 GPUs' mean can carry.
  EXPECT_NE(obstacle({"cluster.fabric.nodes_per_leaf=64", "stragglers.sigma=2"}).find("outweighs"),
            std::string::npos);
  EXPECT_EQ(obstacle({"cluster.fabric.nodes_per_leaf=64", "stragglers.sigma=0.1"}), "");
  EXPECT_NE(obstacle({"stragglers.sigma=0.1", "sync.strategy=ps"}).find("parameter servers"),
            std::string::npos);
  EXPECT_NE(obstacle({"stragglers.sigma=0.1", "stragglers.per_iteration=true",
                      "sync.strategy=local-sgd", "sync.local_sgd.period=2"})
                .find("local SGD"),
            std::string::npos);
  EXPECT_EQ(
      obstacle({"stragglers.sigma=0.1", "sync.strategy=local-sgd", "sync.local_sgd.period=2"}), "");
  // One leaf holding a shared store: its downlink is shared by every node of the cluster.
  std::vector<std::string> one_leaf = kSharedStore;
  one_leaf.push_back("cluster.fabric.nodes_per_leaf=64");
  EXPECT_NE(obstacle(one_leaf).find("shared storage inside one leaf"), std::string::npos);
}

// What a scenario leaves open is resolved once (effective_scenario.h), before the slice scales
// it: a dedicated server's NIC is the cluster's unless stated, the rings one per NIC.
TEST(EffectiveScenario, ResolvesWhatTheScenarioLeavesOpenOnce) {
  const Scenario stated =
      scenario(with_size({64, 8, 16}, {"sync.strategy=ps", "sync.ps.servers=4"}));
  ASSERT_EQ(stated.sync.ps.server_nic_bandwidth, 0);
  ASSERT_EQ(stated.sync.channels, 0);
  const Scenario s = effective_scenario(stated);
  EXPECT_EQ(s.sync.ps.server_nic_bandwidth, stated.cluster.nic.bandwidth);
  EXPECT_EQ(s.sync.channels, 8);  // 8 NICs per node
  const Scenario again = effective_scenario(s);
  EXPECT_EQ(again.sync.ps.server_nic_bandwidth, s.sync.ps.server_nic_bandwidth);
  EXPECT_EQ(again.sync.channels, s.sync.channels);
  // Stated values stay; channels never exceed one ring per GPU of a node.
  const Scenario set = effective_scenario(scenario(with_size(
      {64, 8, 16}, {"sync.strategy=ps", "sync.ps.server_bandwidth=400Gbps", "sync.channels=32"})));
  EXPECT_EQ(set.sync.ps.server_nic_bandwidth, 50e9);
  EXPECT_EQ(set.sync.channels, 8);
  // The slice scales the resolved NIC to its share of the workers (16 of 64 nodes).
  EXPECT_EQ(slice_scenario(s, 16).sync.ps.server_nic_bandwidth,
            stated.cluster.nic.bandwidth * 16 / 64);
}

// The engines' own defaults are resolved there too: Horovod's coordination for the cluster's
// GPUs (2 ceil(log2 p) NIC latencies), a server's update by the optimizer, and priority's credit
// of 5 BytePS partitions (a partition rounded up to 8 GPUs x 4096 bytes).
TEST(EffectiveScenario, ResolvesCoordinationUpdateCostAndCredit) {
  const Scenario fused = scenario(with_size({64, 8, 16}, {"sync.fusion.threshold=64MiB"}));
  ASSERT_LT(fused.sync.fusion.coordination, 0);
  EXPECT_DOUBLE_EQ(effective_scenario(fused).sync.fusion.coordination,
                   2 * 9 * fused.cluster.nic.latency);  // 512 GPUs
  EXPECT_DOUBLE_EQ(
      effective_scenario(scenario(with_size({64, 8, 16}, {"sync.fusion.threshold=64MiB",
                                                          "sync.fusion.coordination=1ms"})))
          .sync.fusion.coordination,
      1e-3);
  EXPECT_LT(effective_scenario(scenario(with_size({64, 8, 16}, {}))).sync.fusion.coordination, 0)
      << "no fusion, nothing to resolve";

  const std::vector<std::string> ps = {"sync.strategy=ps", "sync.ps.servers=4",
                                       "sync.ps.update=server", "sync.partition=1000000B"};
  const auto with = [&](std::vector<std::string> more) {
    more.insert(more.end(), ps.begin(), ps.end());
    return effective_scenario(scenario(with_size({64, 8, 16}, more)));
  };
  EXPECT_EQ(with({"training.optimizer=sgd"}).sync.ps.update_flops_per_param, 2);
  EXPECT_EQ(with({"training.optimizer=momentum"}).sync.ps.update_flops_per_param, 4);
  EXPECT_EQ(with({"training.optimizer=adam"}).sync.ps.update_flops_per_param, 12);
  EXPECT_EQ(with({"training.optimizer=adam", "sync.ps.update_flops_per_param=3"})
                .sync.ps.update_flops_per_param,
            3);
  EXPECT_EQ(with({}).sync.credit, 0) << "FIFO: unlimited";
  const Scenario priority = with({"sync.schedule=priority"});
  EXPECT_EQ(priority.sync.credit, 5 * 1015808.0);  // 1,000,000 up to 31 x 32,768
  EXPECT_EQ(with({"sync.schedule=priority", "sync.credit=1MB"}).sync.credit, 1e6);
  const Scenario again = effective_scenario(priority);
  EXPECT_EQ(again.sync.credit, priority.sync.credit);
  EXPECT_EQ(again.sync.ps.update_flops_per_param, priority.sync.ps.update_flops_per_param);
}

TEST(SymmetryScope, AutoFoldsFrom1024GpusOrAHeadlineRunAndSaysWhy) {
  const ScopeDecision small = decide_scope(scenario(with_size({64, 8, 16}, {})));
  EXPECT_FALSE(small.symmetric);
  EXPECT_EQ(small.note, "full: 512 GPUs (auto folds from 1024)");
  EXPECT_TRUE(small.routine);  // left out of the summary line
  const ScopeDecision big = decide_scope(scenario(with_size({512, 32, 64}, {})));
  EXPECT_TRUE(big.symmetric);
  EXPECT_FALSE(big.routine);
  EXPECT_EQ(big.slice_nodes, 4);
  EXPECT_EQ(big.note,
            "symmetric: 2 of 16 leaves simulated, 2 of each leaf's 32 nodes (4 of 512 nodes), the "
            "rest folded in (auto: 4096 GPUs >= 1024)");
  // A tree's edges across leaves depend on the leaf's size: whole leaves.
  const ScopeDecision tree =
      decide_scope(scenario(with_size({512, 32, 64}, {"sync.algorithm=tree"})));
  EXPECT_EQ(tree.slice_nodes, 64);
  EXPECT_EQ(tree.note,
            "symmetric: 2 of 16 leaves simulated (64 of 512 nodes), the rest folded in "
            "(auto: 4096 GPUs >= 1024)");
  // A run that reports headline figures only (an uncertainty draw) folds at any size.
  const ScopeDecision headline = decide_scope(scenario(with_size({64, 8, 16}, {})), true);
  EXPECT_TRUE(headline.symmetric);
  EXPECT_EQ(headline.note,
            "symmetric: 2 of 8 leaves simulated, 2 of each leaf's 8 nodes (4 of 64 nodes), the "
            "rest folded in (auto: headline figures only, the cluster is regular)");
  const ScopeDecision drawn =
      decide_scope(scenario(with_size({512, 32, 64}, {"stragglers.sigma=0.1"})));
  EXPECT_TRUE(drawn.symmetric);
  EXPECT_EQ(drawn.note,
            "symmetric: 2 of 16 leaves simulated (64 of 512 nodes), the rest folded in "
            "(auto: 4096 GPUs >= 1024); stragglers: expected slowest of 4096 draws (order "
            "statistics)");
  // Below the threshold auto keeps drawing every GPU in a full run, headline-only runs too:
  // the expected-slowest fold is not exact.
  EXPECT_FALSE(decide_scope(scenario(with_size({64, 8, 16}, {"stragglers.sigma=0.1"}))).symmetric);
  EXPECT_FALSE(
      decide_scope(scenario(with_size({64, 8, 16}, {"stragglers.sigma=0.1"})), true).symmetric);
}

TEST(SymmetryScope, ForcingSymmetricWhereItDoesNotFitNamesWhatIsSupported) {
  try {
    decide_scope(scenario(with_size({64, 8, 16}, {"sync.strategy=ps", "sync.ps.placement=colocated",
                                                  "simulation.scope=symmetric"})));
    FAIL() << "expected an input error";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("simulation.scope: symmetric does not fit this scenario: "
                               "colocated and BytePS parameter servers"),
              std::string::npos)
        << e.message();
    EXPECT_NE(e.message().find("symmetric scope supports all-reduce and local SGD"),
              std::string::npos)
        << e.message();
  }
}

}  // namespace
}  // namespace ddpsim
