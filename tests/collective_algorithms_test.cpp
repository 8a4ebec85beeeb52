// The table of collective algorithms (sim/scenario/collective_algorithms.h): every algorithm
// sync.algorithm names has one row and the SimGrid constructors its row promises, the rows'
// resource-guard figures are the closed counts of their flows, and the places that once switched
// over the algorithms read the rows (the ledger's NCCL-latency row, the symmetric scope).
#include "sim/scenario/collective_algorithms.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "sim/engine/simulation.h"
#include "sim/engine/sync_factory.h"
#include "sim/input/scenario_loader.h"
#include "sim/scenario/enum_names.h"
#include "sim/text/input_error.h"

namespace ddpsim {
namespace {

const std::vector<std::string> kNames = {"ring", "tree", "halving-doubling", "hierarchical", "auto",
                                         "nvls", "pat"};

TEST(CollectiveAlgorithms, EveryNameHasOneRowAndItsConstructors) {
  std::set<std::string> names;
  for (const CollectiveAlgorithm& row : collective_algorithms()) {
    SCOPED_TRACE(row.name);
    EXPECT_TRUE(names.insert(row.name).second);
    EXPECT_EQ(&collective_algorithm(row.id), &row);
    EXPECT_STREQ(algorithm_name(row.id), row.name);
    EXPECT_TRUE(has_constructors(row.id));
    // An all-reduce has guard figures; an algorithm of sharded calls alone has its own.
    EXPECT_EQ(row.guard != nullptr, row.all_reduce);
    if (!row.all_reduce) {
      EXPECT_EQ(row.sharded, ShardedRun::kOwn);
    }
  }
  EXPECT_EQ(names.size(), kNames.size());
  for (const std::string& name : kNames) {
    const auto id = enum_from_name<AllReduceAlgorithm>(name);
    ASSERT_TRUE(id.has_value()) << name;
    EXPECT_EQ(collective_algorithm(*id).name, name);
  }
}

TEST(CollectiveAlgorithms, GuardFiguresCountTheFlowsOfOneCall) {
  // 4 nodes x 8 GPUs, 2 out-edges per rank: ring flow 64, chunked 2 x 31 x 32 x 2, tree 128.
  const GuardShape g{32, 64, 3968, 128, 8, false};
  const auto figures = [&](AllReduceAlgorithm a, bool chunked = false) {
    GuardShape shape = g;
    shape.chunked = chunked;
    return collective_algorithm(a).guard(shape);
  };
  EXPECT_EQ(figures(AllReduceAlgorithm::kRing).messages, 64);
  EXPECT_EQ(figures(AllReduceAlgorithm::kRing, true).sleeps, 2 * 31 * 32);
  EXPECT_EQ(figures(AllReduceAlgorithm::kTree).messages, 128);
  EXPECT_EQ(figures(AllReduceAlgorithm::kAuto, true).messages, 3968);
  EXPECT_EQ(figures(AllReduceAlgorithm::kNvls).messages, 32 * 7 + 128);
  EXPECT_EQ(figures(AllReduceAlgorithm::kHalvingDoubling).messages, 2 * 32 * 5);
  EXPECT_EQ(figures(AllReduceAlgorithm::kHierarchical).sleeps, 3 * 32);
  GuardShape six = g;
  six.p = 6;  // q = 4: 2 x 4 x 2 + 4 x 2 for the folded pairs
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kHalvingDoubling).guard(six).messages, 24);
}

TEST(CollectiveAlgorithms, NcclLatencyAndChunkedModeFollowNccl) {
  // NCCL's table prices the tree and NVLS always, the ring and auto in flow mode (the chunked
  // mode charges alpha per step), MPI's and Horovod's algorithms never.
  using L = NcclLatencyUse;
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kTree).nccl_latency, L::kAlways);
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kNvls).nccl_latency, L::kAlways);
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kRing).nccl_latency, L::kFlowMode);
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kAuto).nccl_latency, L::kFlowMode);
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kHalvingDoubling).nccl_latency, L::kNever);
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kHierarchical).nccl_latency, L::kNever);
  for (const CollectiveAlgorithm& row : collective_algorithms())
    EXPECT_EQ(row.chunked_mode,
              row.id == AllReduceAlgorithm::kRing || row.id == AllReduceAlgorithm::kAuto)
        << row.name;
}

// ---------------------------------------------------------------- PAT

// A sharded job of one GPU per node (zero3, MLP): NCCL 2.23's choice for its all-gathers and
// reduce-scatters.
const char* kSingleGpuNodes = R"(name: pat
cluster:
  nodes: 16
  gpus_per_node: 1
  gpu: a100-sxm-80gb
  intra_node: {kind: nvswitch, bandwidth: 300GB/s, latency: 1us}
  pcie: 32GB/s
  nic: {count: 1, bandwidth: 100Gbps, latency: 2us}
model: {name: mlp, layers: [1024, 1024, 1024, 10]}
training: {batch_per_gpu: 8, precision: bf16, optimizer: adam, iterations: 3, warmup: 1}
sync: {strategy: allreduce, algorithm: pat, latency_model: alpha, sharding: zero3, overlap: false}
compute: {mode: roofline, efficiency: 0.5}
)";

std::string load_error(const std::vector<std::string>& overrides) {
  try {
    parse_scenario_text(kSingleGpuNodes, "pat.yaml", overrides);
  } catch (const InputError& e) {
    return e.what();
  }
  return "";
}

TEST(CollectiveAlgorithms, PatRunsShardedCallsOfOneGpuPerNodeOnly) {
  EXPECT_EQ(load_error({}), "");
  const std::string no_sharding = load_error({"sync.sharding=none"});
  EXPECT_NE(no_sharding.find("pat.yaml:"), std::string::npos) << no_sharding;
  EXPECT_NE(no_sharding.find("sync.algorithm: pat prices all-gather and reduce-scatter only"),
            std::string::npos)
      << no_sharding;
  EXPECT_NE(no_sharding.find("ring, tree, halving-doubling, hierarchical, auto, nvls"),
            std::string::npos)
      << no_sharding;
  const std::string eight = load_error({"cluster.nodes=2", "cluster.gpus_per_node=8"});
  EXPECT_NE(eight.find("sync.algorithm: pat needs one GPU per node"), std::string::npos) << eight;
  EXPECT_NE(eight.find("this cluster has 8 GPUs per node"), std::string::npos) << eight;
}

TEST(CollectiveAlgorithms, PatShortensAShardedStepOnlyByTheRingsLatencies) {
  const Scenario pat = parse_scenario_text(kSingleGpuNodes, "pat.yaml");
  const Scenario ring = parse_scenario_text(kSingleGpuNodes, "pat.yaml", {"sync.algorithm=ring"});
  const SimulationResult a = simulate(pat, {TraceGpus::none(), false});
  const SimulationResult b = simulate(ring, {TraceGpus::none(), false});
  // Without overlap every call is exposed: 3 calls per unit of 3 linears, each 15 - 4 = 11
  // latencies shorter (ceil(log2 16) = 4 steps against 15), the same bytes.
  EXPECT_LT(a.breakdown.exposed_comm, b.breakdown.exposed_comm);
  const double saved = b.breakdown.exposed_comm - a.breakdown.exposed_comm;
  const double per_latency = saved / (3 * 3 * 11);
  EXPECT_GT(per_latency, 2e-6);  // at least the NIC's latency per message
  EXPECT_LT(per_latency, 20e-6);
  EXPECT_NEAR(a.breakdown.forward, b.breakdown.forward, 1e-12);
  EXPECT_NE(a.notes.find("pat"), std::string::npos);
  // The resource guard counts its ceil(log2 p) messages per rank and call.
  GuardShape g;
  g.p = 16;
  const GuardFigures f = collective_algorithm(AllReduceAlgorithm::kPat).sharded_guard(g);
  EXPECT_EQ(f.messages, 16 * 4);
}

}  // namespace
}  // namespace ddpsim
