// Reduce-scatter and all-gather (the collectives of sharded data parallelism, issue 17) and the
// node and rail group collectives on the SimGrid platform: ring, halving-doubling and
// hierarchical against their closed forms (collective_formulas.h) to 1e-6, chunked against flow
// mode, tree and auto running the ring, NCCL's tuning model for these collectives, byte
// conservation and volumes, monotonicity in bandwidth, the symmetric scope's slice, and
// make_collective's contract (sync_factory.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/traffic.h"
#include "sim/cost/collective_formulas.h"
#include "sim/cost/nccl_tuning.h"
#include "sim/engine/sync_factory.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/platform/cluster_platform.h"
#include "sim/text/input_error.h"
#include "tests/sim_harness.h"

namespace ddpsim {
namespace {

namespace sg4 = simgrid::s4u;
using testing::make_cluster;
using testing::run_in_engine;

constexpr double kS = 268435456.0;  // 256 MiB: every chunk S/(p*C) below is a whole byte count
constexpr double kUs = 1e-6;
constexpr CollectiveOp kRS = CollectiveOp::kReduceScatter;
constexpr CollectiveOp kAG = CollectiveOp::kAllGather;
constexpr CollectiveOp kAR = CollectiveOp::kAllReduce;

using Factory = std::function<std::unique_ptr<AllReduce>(Transport*)>;

CollectiveCost alpha_model() { return {LatencyModel::kAlpha, NcclProtocol::kAuto}; }
CollectiveCost nccl(NcclProtocol p = NcclProtocol::kSimple) { return {LatencyModel::kNccl, p}; }

Factory ring(CollectiveOp op, CollectiveMode mode = CollectiveMode::kFlow,
             CollectiveCost cost = alpha_model()) {
  return [=](Transport* t) { return make_ring_collective(t, op, mode, 0, cost); };
}
Factory group(CollectiveOp op, CollectiveGroup g, CollectiveMode mode = CollectiveMode::kFlow,
              CollectiveCost cost = alpha_model()) {
  return [=](Transport* t) { return make_group_collective(t, op, g, mode, cost); };
}
// Through the scenario, as the engine builds it.
Factory from_scenario(const ClusterSpec& c, CollectiveOp op, AllReduceAlgorithm algorithm,
                      LatencyModel model = LatencyModel::kAlpha,
                      CollectiveGroup g = CollectiveGroup::kWorld) {
  Scenario s;
  s.cluster = c;
  s.sync.algorithm = algorithm;
  s.sync.latency_model = model;
  return [=](Transport* t) { return make_collective(s, t, op, g); };
}

struct Outcome {
  double last = 0, first = 0;  // latest / earliest rank to return
  double sent = 0, received = 0;
  std::array<double, kLinkClasses> per_class{};
};

// Every rank calls the collective once with `bytes` (tag 1). logical_nodes > 0: the platform
// stands for that many nodes (the symmetric scope's slice).
Outcome run(const ClusterSpec& spec, const Factory& factory, double bytes = kS,
            int logical_nodes = 0) {
  std::vector<double> v = run_in_engine([&]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(spec, {});
    if (logical_nodes > 0) pf.logical_nodes = logical_nodes;
    TrafficCounters counters;
    Transport transport(pf, &counters);
    auto collective = factory(&transport);
    double last = 0, first = 1e300;
    for (size_t r = 0; r < pf.gpus.size(); ++r)
      sg4::Actor::create("rank" + std::to_string(r), pf.gpus[r], [&, r] {
        collective->run(static_cast<int>(r), 1, bytes);
        last = std::max(last, sg4::Engine::get_clock());
        first = std::min(first, sg4::Engine::get_clock());
      });
    sg4::Engine::get_instance()->run();
    double sent = 0, received = 0;
    for (const auto& [h, b] : counters.sent) sent += b;
    for (const auto& [h, b] : counters.received) received += b;
    std::vector<double> out = {last, first, sent, received};
    out.insert(out.end(), counters.bytes_per_class.begin(), counters.bytes_per_class.end());
    return out;
  });
  Outcome o;
  if (v.size() != 4 + kLinkClasses) return o;
  o.last = v[0];
  o.first = v[1];
  o.sent = v[2];
  o.received = v[3];
  std::copy(v.begin() + 4, v.end(), o.per_class.begin());
  return o;
}

void expect_relative(double got, double want, double tolerance = 1e-6) {
  EXPECT_NEAR(got, want, tolerance * want) << "relative error " << (got - want) / want;
}

std::string shape(const ClusterSpec& c) {
  return std::to_string(c.nodes) + "x" + std::to_string(c.gpus_per_node) + " nics " +
         std::to_string(c.nic.count);
}

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

// ---------------------------------------------------------------- ring

TEST(RingReduceScatterAndAllGather, MatchTheClosedFormAtTwoToFiveHundredTwelveRanks) {
  for (CollectiveOp op : {kRS, kAG}) {
    SCOPED_TRACE(collective_op_key(op));
    for (int p : {2, 8, 64, 512}) {
      SCOPED_TRACE(p);
      // One node on NVSwitch (200 GB/s, 1 us), then p single-GPU nodes (NIC 25 GB/s, 3 us).
      Outcome o = run(make_cluster(1, p), ring(op));
      expect_relative(o.last, ring_reduce_scatter_time(p, kS, 200e9, 1e-6));
      expect_relative(o.first, o.last);
      expect_relative(run(make_cluster(p, 1), ring(op)).last,
                      ring_reduce_scatter_time(p, kS, 25e9, 3e-6));
    }
    // 8 nodes x 8 GPUs x 8 NICs: 8 rings, one per NIC, as for the all-reduce.
    expect_relative(run(make_cluster(8, 8, 8), ring(op)).last,
                    ring_reduce_scatter_time(64, kS, 8 * 25e9, 3e-6));
  }
  EXPECT_EQ(ring_all_gather_time(8, kS, 1e9, 1e-6), ring_reduce_scatter_time(8, kS, 1e9, 1e-6));
}

TEST(RingReduceScatterAndAllGather, ChunkedModeAgreesWithFlowMode) {
  for (CollectiveOp op : {kRS, kAG}) {
    for (const ClusterSpec& c : {make_cluster(1, 8), make_cluster(8, 1), make_cluster(8, 8, 8),
                                 make_cluster(8, 8, 4), make_cluster(2, 4, 1)}) {
      SCOPED_TRACE(std::string(collective_op_key(op)) + " " + shape(c));
      Outcome flow = run(c, ring(op));
      Outcome chunked = run(c, ring(op, CollectiveMode::kChunked));
      expect_relative(chunked.last, flow.last);
      expect_relative(chunked.sent, flow.sent, 1e-12);
    }
  }
}

TEST(RingReduceScatterAndAllGather, TreeAndAutoRunTheRingAsNcclDoes) {
  for (CollectiveOp op : {kRS, kAG}) {
    for (LatencyModel model : {LatencyModel::kAlpha, LatencyModel::kNccl}) {
      for (const ClusterSpec& c : {make_cluster(16, 1), make_cluster(4, 8, 8)}) {
        SCOPED_TRACE(std::string(collective_op_key(op)) + " " + shape(c) +
                     (model == LatencyModel::kNccl ? " nccl" : " alpha"));
        const double want = run(c, from_scenario(c, op, AllReduceAlgorithm::kRing, model)).last;
        expect_relative(run(c, from_scenario(c, op, AllReduceAlgorithm::kTree, model)).last, want,
                        1e-12);
        expect_relative(run(c, from_scenario(c, op, AllReduceAlgorithm::kAuto, model)).last, want,
                        1e-12);
      }
    }
  }
}

// ---------------------------------------------------------------- halving-doubling

TEST(HalvingDoublingReduceScatterAndAllGather, MatchTheirClosedForms) {
  for (CollectiveOp op : {kRS, kAG}) {
    SCOPED_TRACE(collective_op_key(op));
    auto hd = [op](Transport* t) { return make_halving_doubling_collective(t, op); };
    for (int p : {2, 8, 64}) {  // powers of two: (p-1)/p S/B + log2(p) alpha
      SCOPED_TRACE(p);
      Outcome o = run(make_cluster(1, p), hd);
      expect_relative(o.last, halving_doubling_reduce_scatter_time(p, kS, 200e9, 1e-6));
      expect_relative(o.last, (p - 1.0) / p * kS / 200e9 + std::log2(p) * 1e-6);
      expect_relative(o.sent, halving_doubling_reduce_scatter_volume(p, kS), 1e-12);
      expect_relative(o.received, o.sent, 1e-12);
      expect_relative(run(make_cluster(p, 1), hd).last,
                      halving_doubling_reduce_scatter_time(p, kS, 25e9, 3e-6));
    }
    for (int p : {3, 6, 12}) {  // the fold: + (S + S/p)/B + 2 alpha
      SCOPED_TRACE(p);
      Outcome o = run(make_cluster(p, 1), hd);
      expect_relative(o.last, halving_doubling_reduce_scatter_time(p, kS, 25e9, 3e-6));
      expect_relative(o.sent, halving_doubling_reduce_scatter_volume(p, kS), 1e-12);
      expect_relative(o.received, o.sent, 1e-12);
    }
  }
}

// ---------------------------------------------------------------- PAT

// NCCL's PAT (pat_collective.cpp, one GPU per node): Bruck's log-step schedule, on uncontended
// links (p-1)/p S/B + ceil(log2 p) alpha, the ring's bytes in log2 steps instead of p-1; built
// through the scenario as the engine builds it.
TEST(PatReduceScatterAndAllGather, MatchBrucksClosedFormAtEveryRankCount) {
  for (CollectiveOp op : {kRS, kAG}) {
    SCOPED_TRACE(collective_op_key(op));
    for (int p : {2, 3, 5, 8, 12, 64}) {
      SCOPED_TRACE(p);
      const ClusterSpec c = make_cluster(p, 1);
      Outcome o = run(c, from_scenario(c, op, AllReduceAlgorithm::kPat));
      expect_relative(o.last, (p - 1.0) / p * kS / 25e9 + std::ceil(std::log2(p)) * 3e-6);
      expect_relative(o.first, o.last);
      expect_relative(o.sent, (p - 1.0) * kS, 1e-12);  // (p-1) S/p per rank, as the ring's
      expect_relative(o.received, o.sent, 1e-12);
    }
  }
}

TEST(PatReduceScatterAndAllGather, SavesTheRingsLatenciesAndKeepsItsBandwidth) {
  // 64 single-GPU nodes: 6 steps against the ring's 63, the same bytes per rank.
  const ClusterSpec c = make_cluster(64, 1);
  for (double bytes : {65536.0, kS}) {
    SCOPED_TRACE(bytes);
    const Outcome r = run(c, ring(kAG), bytes);
    const Outcome pat = run(c, from_scenario(c, kAG, AllReduceAlgorithm::kPat), bytes);
    expect_relative(r.last - pat.last, (63 - 6) * 3e-6);
    expect_relative(pat.sent, r.sent, 1e-12);
  }
}

// `auto` for a sharded job on one GPU per node under NCCL's tuning (auto_may_run_pat): NCCL's
// pick by size (nccl_tuning_test checks the choice by hand) and then that algorithm's own run:
// a small all-gather is PAT's call exactly, a large one the ring's with NCCL's latency; with 8
// GPUs per node, or under the alpha model, auto stays the ring.
TEST(PatReduceScatterAndAllGather, AutoRunsWhatNcclsTunerPicks) {
  auto sharded_auto = [](const ClusterSpec& c, LatencyModel model) -> Factory {
    Scenario s;
    s.cluster = c;
    s.sync.algorithm = AllReduceAlgorithm::kAuto;
    s.sync.latency_model = model;
    s.sync.sharding.strategy = Sharding::kZero3;
    return [=](Transport* t) { return make_collective(s, t, kAG, CollectiveGroup::kWorld); };
  };
  const ClusterSpec c = make_cluster(64, 1);
  Scenario s;
  s.cluster = c;
  s.sync.algorithm = AllReduceAlgorithm::kAuto;
  s.sync.sharding.strategy = Sharding::kZero3;
  EXPECT_TRUE(auto_may_run_pat(s));
  const Outcome small = run(c, sharded_auto(c, LatencyModel::kNccl), 65536);
  const Outcome pat = run(c, from_scenario(c, kAG, AllReduceAlgorithm::kPat), 65536);
  EXPECT_DOUBLE_EQ(small.last, pat.last);
  const Outcome large = run(c, sharded_auto(c, LatencyModel::kNccl), kS);
  const Outcome ring_nccl = run(c, ring(kAG, CollectiveMode::kFlow, nccl(NcclProtocol::kAuto)), kS);
  EXPECT_DOUBLE_EQ(large.last, ring_nccl.last);
  // NCCL's pick, not the faster run: PAT's own flows (pat_collective.cpp) run at the links' rate,
  // where NCCL's model gives it 0.85 of the ring's bus bandwidth, so here it would finish first.
  EXPECT_GT(large.last, run(c, from_scenario(c, kAG, AllReduceAlgorithm::kPat), kS).last);
  // Not where NCCL disables PAT, nor under the alpha model (auto's sharded calls: the ring).
  const ClusterSpec eight = make_cluster(8, 8);
  s.cluster = eight;
  EXPECT_FALSE(auto_may_run_pat(s));
  EXPECT_DOUBLE_EQ(
      run(eight, sharded_auto(eight, LatencyModel::kNccl), 65536).last,
      run(eight, ring(kAG, CollectiveMode::kFlow, nccl(NcclProtocol::kAuto)), 65536).last);
  s.cluster = c;
  s.sync.latency_model = LatencyModel::kAlpha;
  EXPECT_FALSE(auto_may_run_pat(s));
  EXPECT_DOUBLE_EQ(run(c, sharded_auto(c, LatencyModel::kAlpha), 65536).last,
                   run(c, ring(kAG), 65536).last);
}

// ---------------------------------------------------------------- hierarchical

TEST(HierarchicalReduceScatterAndAllGather, MatchThePhaseSumForRailsOfEveryWidth) {
  for (CollectiveOp op : {kRS, kAG}) {
    auto hier = [op](Transport* t) { return make_hierarchical_collective(t, op); };
    for (const ClusterSpec& c :
         {make_cluster(4, 8, 1), make_cluster(4, 8, 2), make_cluster(4, 8, 8),
          make_cluster(16, 4, 4), make_cluster(8, 1), make_cluster(1, 8)}) {
      SCOPED_TRACE(std::string(collective_op_key(op)) + " " + shape(c));
      Outcome o = run(c, hier);
      expect_relative(o.last, hierarchical_reduce_scatter_time(links_of(c), kS));
      expect_relative(o.last, hierarchical_allreduce_time(links_of(c), kS) / 2);
      const double volume = c.total_gpus() * hierarchical_reduce_scatter_volume_per_rank(
                                                 c.nodes, c.gpus_per_node, kS);
      expect_relative(o.sent, volume, 1e-12);
      expect_relative(o.received, volume, 1e-12);
    }
  }
}

// ---------------------------------------------------------------- NCCL latency model

// DGX-like nodes (8 GPUs on NVSwitch 200 GB/s, 8 NICs of 25 GB/s, sm80, Intel host).
ClusterSpec dgx(int nodes) {
  ClusterSpec c = make_cluster(nodes, 8, 8);
  c.gpu.compute_capability = 80;
  return c;
}

TEST(NcclReduceScatterAndAllGather, TakeTheTuningFormulaAtEightSixtyFourAndFiveHundredTwelve) {
  for (CollectiveOp op : {kRS, kAG}) {
    SCOPED_TRACE(collective_op_key(op));
    // One node: V / 200 GB/s + baseLat + (p-1) (hwLat[NVLink][ring][Simple] + 1 us).
    const double v8 = 7.0 / 8 * kS;
    const double t8 = run(dgx(1), ring(op, CollectiveMode::kFlow, nccl())).last;
    expect_relative(t8, v8 / 200e9 + (8.4 + 7 * (3.4 + 1)) * kUs);
    expect_relative(t8, v8 / 200e9 + nccl_latency(nccl_setting(dgx(1), 8), NcclAlgorithm::kRing,
                                                  NcclProtocol::kSimple, kS, op));
    // 8 and 64 nodes: 8 rings through 25 GB/s NICs; P-1 steps of which N-1 cross the network
    // (14 + 3 us), the others at max(3.4 + 1, 3 x 1 us); no plateau factor (all-reduce only).
    for (int nodes : {8, 64}) {
      SCOPED_TRACE(nodes);
      const int p = 8 * nodes, steps = p - 1, inter = nodes - 1;
      const double v = (p - 1.0) / p * kS;
      const double t = run(dgx(nodes), ring(op, CollectiveMode::kFlow, nccl())).last;
      expect_relative(t, v / 8 / 25e9 + (8.4 + (steps - inter) * 4.4 + inter * 17.0) * kUs);
      expect_relative(t,
                      v / 8 / 25e9 + nccl_latency(nccl_setting(dgx(nodes), 8), NcclAlgorithm::kRing,
                                                  NcclProtocol::kSimple, kS, op));
    }
  }
}

TEST(NcclReduceScatterAndAllGather, SmallCallsUseLLAtAThirdOfTheBusBandwidthOnOneNode) {
  // 64 KiB on one DGX: LL (6.6 + 7 x 1.6 us), bus bandwidth 200/3 GB/s (below the 87.7 GB/s LL
  // ceiling), algbw = busbw x 8/7.
  const double s = 65536;
  for (CollectiveOp op : {kRS, kAG}) {
    SCOPED_TRACE(collective_op_key(op));
    Outcome o = run(dgx(1), ring(op, CollectiveMode::kFlow, nccl(NcclProtocol::kAuto)), s);
    expect_relative(o.last, s / (200e9 / 3 * 8 / 7) + (6.6 + 7 * 1.6) * kUs);
  }
}

// ---------------------------------------------------------------- node and rail groups

TEST(GroupCollectives, NodeGroupsAreRingsInsideEveryNode) {
  const ClusterSpec c = make_cluster(4, 8, 2);
  for (CollectiveOp op : {kRS, kAG}) {
    SCOPED_TRACE(collective_op_key(op));
    Outcome o = run(c, group(op, CollectiveGroup::kNode));
    expect_relative(o.last, ring_reduce_scatter_time(8, kS, 200e9, 1e-6));
    expect_relative(o.sent, 32 * 7.0 / 8 * kS, 1e-12);
    expect_relative(o.received, o.sent, 1e-12);
    EXPECT_EQ(o.per_class[static_cast<int>(LinkClass::kNic)], 0);
  }
  Outcome o = run(c, group(kAR, CollectiveGroup::kNode));
  expect_relative(o.last, ring_allreduce_time(8, kS, 200e9, 1e-6));
  expect_relative(o.sent, 32 * 2 * 7.0 / 8 * kS, 1e-12);
}

TEST(GroupCollectives, RailGroupsAreRingsAcrossNodesOverEachGpusNic) {
  // FSDP HYBRID_SHARD: the all-reduce of a S/g shard along each rail. 2 NICs for 8 GPUs: four
  // rails share each NIC, B_rail = min(32, 25 x 2/8) GB/s.
  for (const ClusterSpec& c :
       {make_cluster(4, 8, 2), make_cluster(8, 8, 8), make_cluster(16, 4, 4)}) {
    SCOPED_TRACE(shape(c));
    const int n = c.nodes, g = c.gpus_per_node;
    const double shard = kS / g, b_rail = rail_bandwidth(links_of(c));
    Outcome o = run(c, group(kAR, CollectiveGroup::kRail), shard);
    expect_relative(o.last, 2.0 * (n - 1) / n * shard / b_rail + 2.0 * (n - 1) * 3e-6);
    expect_relative(o.last, ring_allreduce_time(n, shard, b_rail, 3e-6));
    expect_relative(o.sent, c.total_gpus() * 2.0 * (n - 1) / n * shard, 1e-12);
    expect_relative(o.received, o.sent, 1e-12);
    for (CollectiveOp op : {kRS, kAG}) {
      SCOPED_TRACE(collective_op_key(op));
      expect_relative(run(c, group(op, CollectiveGroup::kRail), shard).last,
                      ring_reduce_scatter_time(n, shard, b_rail, 3e-6));
    }
  }
}

TEST(GroupCollectives, ChunkedModeAgreesWithFlowMode) {
  for (CollectiveGroup g : {CollectiveGroup::kNode, CollectiveGroup::kRail}) {
    for (CollectiveOp op : {kAR, kRS, kAG}) {
      SCOPED_TRACE(std::string(collective_op_key(op)) +
                   (g == CollectiveGroup::kNode ? " node" : " rail"));
      const ClusterSpec c = make_cluster(4, 8, 2);
      Outcome flow = run(c, group(op, g));
      Outcome chunked = run(c, group(op, g, CollectiveMode::kChunked));
      expect_relative(chunked.last, flow.last);
      expect_relative(chunked.sent, flow.sent, 1e-12);
    }
  }
}

TEST(GroupCollectives, NcclModelUsesTheGroupsOwnCommunicator) {
  // A node group is a one-node communicator of 8 GPUs; a rail one of n single-GPU nodes (all its
  // steps cross the network: (n-1) x (14 + 3 us) for reduce-scatter).
  const ClusterSpec c = dgx(8);
  Outcome node = run(c, group(kRS, CollectiveGroup::kNode, CollectiveMode::kFlow, nccl()));
  expect_relative(node.last, 7.0 / 8 * kS / 200e9 + (8.4 + 7 * (3.4 + 1)) * kUs);
  const double shard = kS / 8;
  Outcome rail = run(c, group(kRS, CollectiveGroup::kRail, CollectiveMode::kFlow, nccl()), shard);
  expect_relative(rail.last, 7.0 / 8 * shard / 25e9 + (8.4 + 7 * 17.0) * kUs);
}

// ---------------------------------------------------------------- every algorithm

TEST(ShardedCollectives, BytesSentEqualReceivedEqualTheAnalyticVolume) {
  for (const ClusterSpec& c : {make_cluster(1, 8), make_cluster(6, 1), make_cluster(4, 8, 2)}) {
    const int p = c.total_gpus();
    for (CollectiveOp op : {kRS, kAG}) {
      SCOPED_TRACE(std::string(collective_op_key(op)) + " " + shape(c));
      struct Case {
        const char* name;
        Factory factory;
        double volume;
      };
      const std::vector<Case> cases = {
          {"ring", ring(op), (p - 1.0) * kS},  // p ranks x (p-1)/p S
          {"ring chunked", ring(op, CollectiveMode::kChunked), (p - 1.0) * kS},
          {"halving-doubling",
           [op](Transport* t) { return make_halving_doubling_collective(t, op); },
           halving_doubling_reduce_scatter_volume(p, kS)},
          {"hierarchical", [op](Transport* t) { return make_hierarchical_collective(t, op); },
           p * hierarchical_reduce_scatter_volume_per_rank(c.nodes, c.gpus_per_node, kS)},
      };
      for (const Case& k : cases) {
        SCOPED_TRACE(k.name);
        Outcome o = run(c, k.factory);
        expect_relative(o.sent, k.volume, 1e-12);
        expect_relative(o.received, k.volume, 1e-12);
      }
    }
  }
}

TEST(ShardedCollectives, MoreBandwidthIsNeverSlower) {
  const std::vector<AllReduceAlgorithm> algorithms = {AllReduceAlgorithm::kRing,
                                                      AllReduceAlgorithm::kHalvingDoubling,
                                                      AllReduceAlgorithm::kHierarchical};
  for (CollectiveOp op : {kRS, kAG}) {
    for (AllReduceAlgorithm a : algorithms) {
      SCOPED_TRACE(std::string(collective_op_key(op)) + " " + algorithm_name(a));
      double previous = 1e300;
      for (double nic : {5e9, 12.5e9, 25e9, 50e9, 100e9}) {
        ClusterSpec c = make_cluster(4, 4, 2);
        c.nic.bandwidth = nic;
        c.pcie_bandwidth = 2 * nic;
        const double t = run(c, from_scenario(c, op, a)).last;
        EXPECT_LE(t, previous * (1 + 1e-12)) << nic;
        previous = t;
      }
    }
    for (CollectiveGroup g : {CollectiveGroup::kNode, CollectiveGroup::kRail}) {
      double previous = 1e300;
      for (double bw : {10e9, 50e9, 200e9}) {
        ClusterSpec c = make_cluster(4, 4, 2);
        c.nic.bandwidth = c.pcie_bandwidth = c.intra_node.bandwidth = bw;
        const double t = run(c, group(op, g)).last;
        EXPECT_LE(t, previous * (1 + 1e-12)) << bw;
        previous = t;
      }
    }
  }
}

TEST(ShardedCollectives, SymmetricSliceCarriesTheWholeClustersLoads) {
  // 64 nodes of 8 GPUs with 8 NICs, simulated as one 16-node leaf standing for all 64: the
  // slice's edges carry what the full ring's do and the latency counts the full ring's steps.
  const ClusterSpec slice = make_cluster(16, 8, 8);
  for (CollectiveOp op : {kRS, kAG}) {
    SCOPED_TRACE(collective_op_key(op));
    expect_relative(run(slice, ring(op), kS, 64).last,
                    ring_reduce_scatter_time(512, kS, 8 * 25e9, 3e-6));
    expect_relative(run(slice, group(op, CollectiveGroup::kRail), kS / 8, 64).last,
                    ring_reduce_scatter_time(64, kS / 8, 25e9, 3e-6));
  }
}

TEST(MakeCollective, AllReduceOverTheWorldIsMakeAllreduce) {
  for (AllReduceAlgorithm a :
       {AllReduceAlgorithm::kRing, AllReduceAlgorithm::kTree, AllReduceAlgorithm::kAuto,
        AllReduceAlgorithm::kHalvingDoubling, AllReduceAlgorithm::kHierarchical}) {
    SCOPED_TRACE(algorithm_name(a));
    const ClusterSpec c = make_cluster(4, 4, 2);
    Scenario s;
    s.cluster = c;
    s.sync.algorithm = a;
    const double old_way = run(
                               c, [s](Transport* t) { return make_allreduce(s, t); }, 1048576)
                               .last;
    expect_relative(run(c, from_scenario(c, kAR, a, LatencyModel::kNccl), 1048576).last, old_way,
                    1e-12);
  }
}

TEST(MakeCollective, AMeasuredTableWithoutTheOpsRowsIsAnInputError) {
  Scenario s;
  s.cluster = make_cluster(2, 4);
  s.sync.alpha_beta[AllReduceAlgorithm::kRing] = {{0, 1e30, 10e-6, 1e-9}};
  for (CollectiveOp op : {kRS, kAG}) {
    try {
      make_collective(s, nullptr, op);
      ADD_FAILURE() << "no error for " << collective_op_key(op);
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find(std::string("no ") + collective_op_key(op) + " rows"),
                std::string::npos)
          << e.what();
    }
  }
  EXPECT_THROW(make_collective(s, nullptr, kAR, CollectiveGroup::kRail), InputError);
  EXPECT_THROW(make_collective(s, nullptr, CollectiveOp::kBroadcast), std::invalid_argument);
}

TEST(MakeCollective, AMeasuredTableAnswersWithItsOwnRowsForTheOp) {
  // A table file with reduce_scatter rows for ring and all_reduce rows: the reduce-scatter sleeps
  // its own row and accounts one ring pass; all-gather has no rows and is refused.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("ddpsim-sharded-" + std::to_string(getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "table.yaml").string();
  std::ofstream(path)
      << "collectives:\n"
         "  - op: all_reduce\n"
         "    algorithm: ring\n"
         "    gpus: 8\n"
         "    fit: [ { min_bytes: 0, max_bytes: .inf, alpha: 1e-4, beta: 1e-9 } ]\n"
         "  - op: reduce_scatter\n"
         "    algorithm: ring\n"
         "    gpus: 8\n"
         "    fit: [ { min_bytes: 0, max_bytes: .inf, alpha: 2e-5, beta: 3e-10 } ]\n";
  const ClusterSpec c = make_cluster(2, 4);
  Scenario s;
  s.cluster = c;
  s.sync.alpha_beta_table = path;
  s.sync.alpha_beta_file = std::make_shared<const AlphaBetaFile>(load_alpha_beta_file(path));
  std::filesystem::remove_all(dir);  // read once, as the loader does: the engine never opens it
  Outcome o = run(c, [s](Transport* t) { return make_collective(s, t, kRS); });
  expect_relative(o.last, 2e-5 + 3e-10 * kS, 1e-12);
  expect_relative(o.sent, 7 * kS, 1e-12);
  expect_relative(o.received, o.sent, 1e-12);
  try {
    make_collective(s, nullptr, kAG);
    ADD_FAILURE() << "no error for all_gather";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no all_gather rows for algorithm 'ring' nor for 'auto'"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace ddpsim
