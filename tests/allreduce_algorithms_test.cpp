// Tree, halving-doubling, hierarchical, auto and alpha-beta-table all-reduce on the SimGrid
// platform: their closed forms (collective_formulas.h) on uncontended links to 1e-6, byte
// conservation and theoretical volumes, the start barrier, and auto's choice.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/traffic.h"
#include "sim/cost/collective_formulas.h"
#include "sim/platform/cluster_platform.h"
#include "tests/sim_harness.h"

namespace ddpsim {
namespace {

namespace sg4 = simgrid::s4u;
using testing::make_cluster;
using testing::run_in_engine;

constexpr double kS = 268435456.0;  // 256 MiB

using Factory = std::function<std::unique_ptr<AllReduce>(Transport*)>;

Factory tree() {
  return [](Transport* t) { return make_tree_allreduce(t, 0); };
}
Factory nvls(CollectiveCost cost = {}) {
  return [cost](Transport* t) { return make_nvls_allreduce(t, 0, cost); };
}
Factory halving_doubling() { return make_halving_doubling_allreduce; }
Factory hierarchical() { return make_hierarchical_allreduce; }
Factory automatic(CollectiveCost cost = {}) {
  return [cost](Transport* t) { return make_auto_allreduce(t, CollectiveMode::kFlow, 0, cost); };
}
Factory ring_nccl(CollectiveCost cost) {
  return [cost](Transport* t) { return make_ring_allreduce(t, CollectiveMode::kFlow, 0, cost); };
}
Factory tree_nccl(CollectiveCost cost) {
  return [cost](Transport* t) { return make_tree_allreduce(t, 0, cost); };
}
Factory ring() {
  return [](Transport* t) { return make_ring_allreduce(t, CollectiveMode::kFlow, 0); };
}

struct Outcome {
  double last = 0, first = 0;  // latest / earliest rank to return from the (last) call
  double sent = 0, received = 0, messages = 0;
  std::array<double, kLinkClasses> per_class{};
  std::string picked;  // algorithm_for(bytes of the last call)
};

// Every rank calls the algorithm once per size (tags 1, 2, ...), after sleeping pause[rank].
Outcome run(const ClusterSpec& spec, const Factory& factory, std::vector<double> sizes = {kS},
            std::vector<double> pause = {}) {
  std::string picked;
  std::vector<double> v = run_in_engine([&]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(spec, {});
    TrafficCounters counters;
    Transport transport(pf, &counters);
    auto algorithm = factory(&transport);
    const int p = static_cast<int>(pf.gpus.size());
    double last = 0, first = 1e300;
    for (int r = 0; r < p; ++r)
      sg4::Actor::create("rank" + std::to_string(r), pf.gpus[r], [&, r] {
        if (r < static_cast<int>(pause.size()) && pause[r] > 0)
          sg4::this_actor::sleep_for(pause[r]);
        for (size_t i = 0; i < sizes.size(); ++i) algorithm->run(r, i + 1, sizes[i]);
        last = std::max(last, sg4::Engine::get_clock());
        first = std::min(first, sg4::Engine::get_clock());
      });
    sg4::Engine::get_instance()->run();
    double sent = 0, received = 0;
    for (const auto& [h, b] : counters.sent) sent += b;
    for (const auto& [h, b] : counters.received) received += b;
    std::vector<double> out = {last, first, sent, received, counters.messages};
    out.insert(out.end(), counters.bytes_per_class.begin(), counters.bytes_per_class.end());
    // The pick, encoded as a number: 1 = tree, 2 = nvls or nvls-tree, 0 = anything else.
    const std::string pick = algorithm->algorithm_for(sizes.back());
    out.push_back(pick.rfind("tree", 0) == 0 ? 1 : pick.rfind("nvls", 0) == 0 ? 2 : 0);
    return out;
  });
  Outcome o;
  if (v.size() != 6 + kLinkClasses) return o;
  o.last = v[0];
  o.first = v[1];
  o.sent = v[2];
  o.received = v[3];
  o.messages = v[4];
  std::copy(v.begin() + 5, v.begin() + 5 + kLinkClasses, o.per_class.begin());
  o.picked = v.back() == 1 ? "tree" : v.back() == 2 ? "nvls" : "ring";
  return o;
}

void expect_relative(double got, double want, double tolerance = 1e-6) {
  EXPECT_NEAR(got, want, tolerance * want) << "relative error " << (got - want) / want;
}

// ---------------------------------------------------------------- double binary tree

TEST(TreeAllReduce, OneNodeIsAPipelinedChain) {
  for (int g : {2, 3, 8}) {
    SCOPED_TRACE(g);
    Outcome o = run(make_cluster(1, g), tree());
    expect_relative(o.last, chain_allreduce_time(g, kS, 200e9, 1e-6));
    expect_relative(o.first, o.last);
  }
}

TEST(TreeAllReduce, OneGpuPerNodeMatchesTheDoubleTreeClosedForm) {
  for (int n : {2, 3, 4, 5, 8, 16, 64}) {
    SCOPED_TRACE(n);
    Outcome o = run(make_cluster(n, 1), tree());  // NIC 25 GB/s < PCIe 32 GB/s
    expect_relative(o.last, double_binary_tree_time(n, kS, 25e9, 3e-6));
    if (n >= 4) expect_relative(o.last, 2 * kS / 25e9 + 2 * std::ceil(std::log2(n)) * 3e-6);
  }
}

TEST(TreeAllReduce, EightRailsCarryOneChannelEach) {
  // 4 nodes x 8 GPUs x 8 NICs: 8 channels of S/8, heads on distinct NICs. A head inner in one
  // node tree sends 4 flows of S/16 through its NIC (S/4 at 25 GB/s); NVSwitch links carry at
  // most 2 * 7/8 S at 200 GB/s: the NICs bind. Latency 2 * (7 * 1 us + depth 2 * 3 us).
  Outcome o = run(make_cluster(4, 8, 8), tree());
  expect_relative(o.last, kS / 4 / 25e9 + 2 * (7e-6 + 2 * 3e-6));
  // One NIC: one channel, its head's NIC carries 2 S.
  o = run(make_cluster(4, 8, 1), tree());
  expect_relative(o.last, 2 * kS / 25e9 + 2 * (7e-6 + 2 * 3e-6));
}

TEST(TreeAllReduce, FastRailsLeaveTheChainsAsTheBottleneck) {
  // 2 channels (heads 0 and 4) over fast NICs: a GPU that heads no chain sends S down and S up
  // its chains (two channels' halves merged), 2 S at 200 GB/s; a head's NIC carries only S/2.
  ClusterSpec c = make_cluster(4, 8, 2);
  c.nic.bandwidth = 400e9;
  c.pcie_bandwidth = 400e9;
  expect_relative(run(c, tree()).last, 2 * kS / 200e9 + 2 * (7e-6 + 2 * 3e-6));
}

// ---------------------------------------------------------------- NVLS

TEST(NvlsAllReduce, OneNodeCarriesOneAndAGthBufferPerPortEachWay) {
  for (int g : {2, 4, 8}) {
    SCOPED_TRACE(g);
    Outcome o = run(make_cluster(1, g), nvls());
    expect_relative(o.last, nvls_allreduce_time(g, kS, 200e9, 1e-6));
    expect_relative(o.first, o.last);
    // Every port moves S (1+1/g) each way: g (1+1/g) S = (g+1) S sent, and as much received.
    expect_relative(o.sent, (g + 1) * kS);
    expect_relative(o.received, o.sent);
    // Less than the ring's 2(g-1)/g S per port from g = 3 on: the switch does the reducing.
    if (g > 2) {
      EXPECT_LT(o.last, ring_allreduce_time(g, kS, 200e9, 1e-6));
    }
  }
}

TEST(NvlsAllReduce, AcrossNodesTheTreeRunsOnEveryRail) {
  // 4 nodes x 8 GPUs x 8 NICs: NVLSTree. The network part is the tree's (a head inner in one
  // node tree sends S/4 through its NIC at 25 GB/s); the ports carry 9/8 S at 200 GB/s. Latency
  // 2 * (one NVSwitch hop 1 us + depth 2 * 3 us).
  Outcome o = run(make_cluster(4, 8, 8), nvls());
  expect_relative(o.last, kS / 4 / 25e9 + 2 * (1e-6 + 2 * 3e-6));
  // 2 nodes: each NIC carries S/8 each way (S/200e9), the ports 9/8 S / 200e9: the ports bind.
  o = run(make_cluster(2, 8, 8), nvls());
  expect_relative(o.last, 9.0 / 8 * kS / 200e9 + 2 * (1e-6 + 3e-6));
  expect_relative(o.received, o.sent);
}

TEST(NvlsAllReduce, AutoPicksNvlsForLargeMessagesOnHopperNodesOnly) {
  const CollectiveCost nccl{LatencyModel::kNccl, NcclProtocol::kAuto};
  ClusterSpec hopper = make_cluster(1, 8);
  hopper.gpu.compute_capability = 90;
  hopper.intra_node.latency = 0;  // NCCL's own hop latencies alone
  EXPECT_EQ(run(hopper, automatic(nccl), {4096.0}).picked, "ring");  // 23 us is NVLS's floor
  Outcome o = run(hopper, automatic(nccl), {kS});
  EXPECT_EQ(o.picked, "nvls");
  expect_relative(o.last, run(hopper, nvls(nccl), {kS}).last);
  // Forcing LL rules NVLS out; so does an Ampere GPU.
  EXPECT_EQ(run(hopper, automatic({LatencyModel::kNccl, NcclProtocol::kLL}), {kS}).picked, "ring");
  ClusterSpec ampere = hopper;
  ampere.gpu.compute_capability = 80;
  EXPECT_EQ(run(ampere, automatic(nccl), {kS}).picked, "ring");
}

// ---------------------------------------------------------------- halving-doubling

TEST(HalvingDoublingAllReduce, PowerOfTwoRanksMatchRabenseifner) {
  for (int p : {2, 4, 8, 64}) {
    SCOPED_TRACE(p);
    expect_relative(run(make_cluster(1, p), halving_doubling()).last,
                    halving_doubling_time(p, kS, 200e9, 1e-6));
    expect_relative(run(make_cluster(p, 1), halving_doubling()).last,
                    2.0 * (p - 1) / p * kS / 25e9 + 2 * std::log2(p) * 3e-6);
  }
}

TEST(HalvingDoublingAllReduce, OtherRankCountsFoldTheRemainderFirst) {
  for (int p : {3, 5, 6, 12, 24}) {
    SCOPED_TRACE(p);
    Outcome o = run(make_cluster(p, 1), halving_doubling());
    expect_relative(o.last, halving_doubling_time(p, kS, 25e9, 3e-6));
    expect_relative(o.sent, halving_doubling_volume(p, kS), 1e-12);
  }
}

TEST(HalvingDoublingAllReduce, MessagesAreOnePerStepAndPartner) {
  // 8 ranks: 2 * 3 steps, one message each way per pair, 8 senders.
  EXPECT_EQ(run(make_cluster(8, 1), halving_doubling()).messages, 2 * 3 * 8);
  // 6 ranks: 2 folded pairs (pre + post), 4 main ranks with 2 * 2 steps.
  EXPECT_EQ(run(make_cluster(6, 1), halving_doubling()).messages, 2 * 2 + 4 * 4);
}

// ---------------------------------------------------------------- hierarchical

HierarchicalLinks links_of(const ClusterSpec& c) {
  HierarchicalLinks l;
  l.nodes = c.nodes;
  l.gpus_per_node = c.gpus_per_node;
  l.nics = c.nic.count;
  l.intra_bandwidth = c.intra_node.bandwidth;
  l.intra_alpha = c.intra_node.latency;
  l.nic_bandwidth = c.nic.bandwidth;
  l.pcie_bandwidth = c.pcie_bandwidth;
  l.nic_alpha = c.nic.latency;
  return l;
}

TEST(HierarchicalAllReduce, MatchesThePhaseSumForRailsOfEveryWidth) {
  for (const ClusterSpec& c : {make_cluster(4, 8, 1), make_cluster(4, 8, 2), make_cluster(4, 8, 8),
                               make_cluster(16, 4, 4), make_cluster(8, 1), make_cluster(1, 8)}) {
    SCOPED_TRACE(std::to_string(c.nodes) + "x" + std::to_string(c.gpus_per_node) + " nics " +
                 std::to_string(c.nic.count));
    Outcome o = run(c, hierarchical());
    expect_relative(o.last, hierarchical_allreduce_time(links_of(c), kS));
    const int p = c.total_gpus();
    expect_relative(o.sent, p * hierarchical_volume_per_rank(c.nodes, c.gpus_per_node, kS), 1e-12);
  }
}

TEST(HierarchicalAllReduce, ReducesToTheRingOnOneNodeOrOneGpuPerNode) {
  expect_relative(run(make_cluster(1, 8), hierarchical()).last,
                  ring_allreduce_time(8, kS, 200e9, 1e-6));
  expect_relative(run(make_cluster(8, 1), hierarchical()).last,
                  ring_allreduce_time(8, kS, 25e9, 3e-6));
}

TEST(HierarchicalAllReduce, InterNodeBytesCrossNicsOncePerShard) {
  // 4 nodes x 8 GPUs x 2 NICs: every GPU sends 2 * 3/4 * S/8 across nodes (two NIC links and
  // two PCIe links per message), and 2 * 7/8 S inside its node (two NVSwitch links).
  Outcome o = run(make_cluster(4, 8, 2), hierarchical());
  const double inter = 32 * 2 * 0.75 * kS / 8, intra = 32 * 2 * 7.0 / 8 * kS;
  expect_relative(o.per_class[static_cast<int>(LinkClass::kNic)], 2 * inter, 1e-12);
  expect_relative(o.per_class[static_cast<int>(LinkClass::kPcie)], 2 * inter, 1e-12);
  expect_relative(o.per_class[static_cast<int>(LinkClass::kIntraNode)], 2 * intra, 1e-12);
}

// ---------------------------------------------------------------- all algorithms

TEST(AllReduceAlgorithms, BytesSentEqualReceivedEqualTheTheoreticalVolume) {
  for (const ClusterSpec& c :
       {make_cluster(1, 8), make_cluster(6, 1), make_cluster(4, 8, 2), make_cluster(3, 4, 1)}) {
    const int p = c.total_gpus();
    SCOPED_TRACE(p);
    struct Case {
      const char* name;
      Factory factory;
      double volume;
    };
    // Any reduce + broadcast over a spanning tree moves 2 (p-1) S, like the ring.
    const std::vector<Case> cases = {
        {"ring", ring(), 2.0 * (p - 1) * kS},
        {"tree", tree(), 2.0 * (p - 1) * kS},
        {"halving-doubling", halving_doubling(), halving_doubling_volume(p, kS)},
        {"hierarchical", hierarchical(),
         p * hierarchical_volume_per_rank(c.nodes, c.gpus_per_node, kS)},
    };
    for (const Case& k : cases) {
      SCOPED_TRACE(k.name);
      Outcome o = run(c, k.factory);
      expect_relative(o.sent, k.volume, 1e-12);
      expect_relative(o.received, k.volume, 1e-12);
    }
  }
}

TEST(AllReduceAlgorithms, NoneStartsBeforeTheLastRankJoins) {
  const ClusterSpec c = make_cluster(4, 4, 2);
  for (const Factory& f : {tree(), halving_doubling(), hierarchical()}) {
    const double alone = run(c, f).last;
    std::vector<double> pause(16, 0.0);
    pause[9] = 2.5e-3;
    Outcome o = run(c, f, {kS}, pause);
    expect_relative(o.last, alone + 2.5e-3);
    expect_relative(o.first, alone + 2.5e-3);
  }
}

TEST(AllReduceAlgorithms, SingleGpuTakesNoTimeAndMovesNoBytes) {
  for (const Factory& f : {tree(), halving_doubling(), hierarchical(), automatic()}) {
    Outcome o = run(make_cluster(1, 1), f);
    EXPECT_EQ(o.last, 0);
    EXPECT_EQ(o.sent, 0);
  }
}

// ---------------------------------------------------------------- auto

TEST(AutoAllReduce, PicksTreeForSmallMessagesAcrossNodesAndRingForLarge) {
  const ClusterSpec c = make_cluster(16, 1);
  for (double bytes : {4096.0, 65536.0, 1048576.0, 16777216.0, 268435456.0}) {
    SCOPED_TRACE(bytes);
    const double t_ring = run(c, ring(), {bytes}).last;
    const double t_tree = run(c, tree(), {bytes}).last;
    Outcome o = run(c, automatic(), {bytes});
    // On these uncontended links the predictions are the closed forms: auto is the faster one.
    expect_relative(o.last, std::min(t_ring, t_tree));
    EXPECT_EQ(o.picked, t_tree < t_ring ? "tree" : "ring");
  }
  EXPECT_EQ(run(c, automatic(), {4096.0}).picked, "tree");
  EXPECT_EQ(run(c, automatic(), {268435456.0}).picked, "ring");
}

TEST(AutoAllReduce, OnMoreThanTwoNodesRatesTheTreeByTheRingsNetworkBandwidthAsNcclDoes) {
  // 8 GPUs and 4 NICs per node, NCCL's cost model, 256 MiB. On 2 nodes each NIC carries S/4 each
  // way in the tree against 2(p-1)/p S/4 in the ring: the flows decide, the tree. On 3 nodes the
  // tree's flows are still faster on idle links, but NCCL's tuner rates the tree by the network
  // bandwidth per channel, like the ring (bus bandwidth at most the ring's), and rings.
  const CollectiveCost nccl{LatencyModel::kNccl, NcclProtocol::kAuto};
  const ClusterSpec two = make_cluster(2, 8, 4);
  EXPECT_EQ(run(two, automatic(nccl), {kS}).picked, "tree");
  const ClusterSpec three = make_cluster(3, 8, 4);
  const double t_ring = run(three, ring_nccl(nccl), {kS}).last;
  const double t_tree = run(three, tree_nccl(nccl), {kS}).last;
  EXPECT_LT(t_tree, t_ring);
  Outcome o = run(three, automatic(nccl), {kS});
  EXPECT_EQ(o.picked, "ring");
  expect_relative(o.last, t_ring);
  // Small messages are latency-bound: the tree's log2 hops win there on 3 nodes too.
  EXPECT_EQ(run(three, automatic(nccl), {4096.0}).picked, "tree");
}

TEST(AutoAllReduce, AlwaysPicksRingInsideOneNode) {
  for (double bytes : {4096.0, 268435456.0}) {
    Outcome o = run(make_cluster(1, 8), automatic(), {bytes});
    EXPECT_EQ(o.picked, "ring");
    expect_relative(o.last, ring_allreduce_time(8, bytes, 200e9, 1e-6));
  }
}

// ---------------------------------------------------------------- alpha-beta table

TEST(AlphaBetaAllReduce, SleepsTheTablesTimeAndAccountsTheRingsBytes) {
  AlphaBetaTable table;
  table[AllReduceAlgorithm::kRing] = {{0, 1048576, 20e-6, 1e-9}, {1048576, INFINITY, 50e-6, 4e-10}};
  auto factory = [table](Transport* t) {
    return make_alpha_beta_allreduce(t, AllReduceAlgorithm::kRing, table);
  };
  const ClusterSpec c = make_cluster(4, 8, 8);
  for (double bytes : {65536.0, kS}) {
    SCOPED_TRACE(bytes);
    Outcome o = run(c, factory, {bytes});
    const double want = bytes < 1048576 ? 20e-6 + 1e-9 * bytes : 50e-6 + 4e-10 * bytes;
    expect_relative(o.last, want, 1e-12);
    expect_relative(o.sent, 2.0 * 31 * bytes, 1e-12);
    expect_relative(o.received, o.sent, 1e-12);
  }
  std::vector<double> pause(32, 0.0);
  pause[17] = 1e-3;
  expect_relative(run(c, factory, {kS}, pause).first, 1e-3 + 50e-6 + 4e-10 * kS, 1e-12);
}

TEST(AlphaBetaAllReduce, FallsBackToAutoRowsAndRejectsATableWithNeither) {
  AlphaBetaTable table;
  table[AllReduceAlgorithm::kAuto] = {{0, INFINITY, 10e-6, 1e-9}};
  Outcome o = run(make_cluster(2, 1),
                  [table](Transport* t) {
                    return make_alpha_beta_allreduce(t, AllReduceAlgorithm::kTree, table);
                  },
                  {1e6});
  expect_relative(o.last, 10e-6 + 1e-3, 1e-12);
  AlphaBetaTable ring_only;
  ring_only[AllReduceAlgorithm::kRing] = {{0, INFINITY, 10e-6, 1e-9}};
  std::vector<double> v = run_in_engine([&]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(make_cluster(2, 1), {});
    Transport transport(pf, nullptr);
    try {
      make_alpha_beta_allreduce(&transport, AllReduceAlgorithm::kTree, ring_only);
    } catch (const std::invalid_argument&) {
      return {1};
    }
    return {0};
  });
  EXPECT_EQ(v, std::vector<double>{1});
}

}  // namespace
}  // namespace ddpsim
