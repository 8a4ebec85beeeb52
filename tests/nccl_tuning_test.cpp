// NCCL's cost model (sim/cost/nccl_tuning.h) against the formulas of NVIDIA/nccl v2.20.3
// src/graph/tuning.cc written out by hand: ring and tree latency at p = 8, 64 and 512 for every
// protocol, the protocols' bandwidth ceilings, NCCL's protocol choice by size and the shape of
// the predicted bus-bandwidth curve from 8 B to 8 GB.
#include "sim/cost/nccl_tuning.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace ddpsim {
namespace {

constexpr double kUs = 1e-6;

void expect_relative(double got, double want, double tolerance = 1e-6) {
  EXPECT_NEAR(got, want, tolerance * std::fabs(want)) << "relative error " << (got - want) / want;
}

// DGX-like nodes: 8 GPUs on NVSwitch, sm80, Intel host, GPUDirect RDMA, 1 us / 2 us link
// latencies on top of NCCL's per-hop figures.
NcclSetting dgx(int nodes) {
  NcclSetting s;
  s.ranks = 8 * nodes;
  s.nodes = nodes;
  s.intra = NcclHardware::kNvLink;
  s.compute_capability = 80;
  s.ll128 = true;
  s.channels = 8;
  s.intra_hop = 1e-6;
  s.net_hop = 2e-6;
  return s;
}

TEST(NcclLatency, RingAtEightRanksOnOneNode) {
  // baseLat + 2(p-1) * (hwLat[NVLink][ring] + 1 us); no network steps on one node.
  const NcclSetting s = dgx(1);
  expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kLL, 1e6),
                  (6.6 + 14 * (0.6 + 1)) * kUs);
  expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kLL128, 1e6),
                  (14.0 + 14 * (1.9 + 1)) * kUs);
  expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kSimple, 1e6),
                  (8.4 + 14 * (3.4 + 1)) * kUs);
}

TEST(NcclLatency, RingAcrossNodesChargesNetworkStepsAndThePlateau) {
  for (int nodes : {8, 64}) {  // p = 64 and 512
    SCOPED_TRACE(nodes);
    const NcclSetting s = dgx(nodes);
    const int p = 8 * nodes, steps = 2 * (p - 1), inter = 2 * nodes;
    // LL: intra max(0.6 + 1, netOverhead 1) = 1.6; network 2.7 + 2.
    expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kLL, 8),
                    (6.6 + (steps - inter) * 1.6 + inter * 4.7) * kUs);
    // LL128: intra max(1.9 + 1, 1) = 2.9; network 4.0 + 2.
    expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kLL128, 8),
                    (14.0 + (steps - inter) * 2.9 + inter * 6.0) * kUs);
    // Simple: intra max(3.4 + 1, 3 x 1) = 4.4; network 14 + 2; x1.4 (sm80) once
    // S / (channels * p) >= 64 B, not below.
    const double simple = 8.4 + (steps - inter) * 4.4 + inter * 16.0;
    const double threshold = 64.0 * 8 * p;
    expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kSimple, threshold - 1),
                    simple * kUs);
    expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kSimple, threshold),
                    1.4 * simple * kUs);
  }
}

TEST(NcclLatency, AmdHostsAndVoltaChangeOverheadAndPlateau) {
  NcclSetting s = dgx(8);
  s.cpu = CpuVendor::kAmd;
  s.compute_capability = 70;
  s.intra_hop = 0;  // intra max(3.4, 3 x 2 us) = 6
  const int p = 64, steps = 2 * (p - 1), inter = 16;
  expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kSimple, 1e9),
                  1.9 * (8.4 + (steps - inter) * 6.0 + inter * 16.0) * kUs);
}

TEST(NcclLatency, TreeAtEightSixtyFourAndFiveHundredTwelveRanks) {
  // baseLat + 2 ((p/n - 1) intraLat + floor(log2 n) interLat).
  for (int nodes : {1, 8, 64}) {
    SCOPED_TRACE(nodes);
    const NcclSetting s = dgx(nodes);
    const int depth = static_cast<int>(std::floor(std::log2(nodes)));
    expect_relative(nccl_latency(s, NcclAlgorithm::kTree, NcclProtocol::kLL, 1e6),
                    (6.8 + 2 * (7 * 1.6 + depth * 7.0)) * kUs);
    expect_relative(nccl_latency(s, NcclAlgorithm::kTree, NcclProtocol::kLL128, 1e6),
                    (14.0 + 2 * (7 * 2.25 + depth * 10.5)) * kUs);
    expect_relative(nccl_latency(s, NcclAlgorithm::kTree, NcclProtocol::kSimple, 1e6),
                    (0 + 2 * (7 * 29.0 + depth * 30.0)) * kUs);
  }
  // One GPU per node over PCI-class intra links: the intra term vanishes.
  NcclSetting s = dgx(512);
  s.ranks = 512;
  s.intra = NcclHardware::kPci;
  expect_relative(nccl_latency(s, NcclAlgorithm::kTree, NcclProtocol::kSimple, 1e6),
                  2 * 9 * 30.0 * kUs);
}

TEST(NcclLatency, PcieNodesUseThePciRow) {
  NcclSetting s = dgx(1);
  s.intra = NcclHardware::kPci;
  s.intra_hop = 0;
  expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kSimple, 1e6),
                  (8.4 + 14 * 5.7) * kUs);
  expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kLL, 1e6),
                  (6.6 + 14 * 1.0) * kUs);
}

TEST(NcclBandwidth, ProtocolsDerateTheLinksAsTuningDoes) {
  const NcclSetting s = dgx(1);
  const double links = 100e9, ratio = 2.0 * 7 / 8;  // ring algbw -> busbw
  const double bus = links * ratio;
  expect_relative(nccl_algbw(s, NcclAlgorithm::kRing, NcclProtocol::kSimple, 1e6, links), links);
  // LL: a quarter of the bus bandwidth, at most 87.7 GB/s (Ampere, one node).
  expect_relative(nccl_algbw(s, NcclAlgorithm::kRing, NcclProtocol::kLL, 1e6, links),
                  bus / 4 / ratio);
  expect_relative(nccl_algbw(s, NcclAlgorithm::kRing, NcclProtocol::kLL, 1e6, 1000e9),
                  87.7e9 / ratio);
  expect_relative(nccl_algbw(s, NcclAlgorithm::kRing, NcclProtocol::kLL128, 1e6, links),
                  0.92 * links);
  // Tree (algbw = busBw / 2): x0.92, LL /3.8, LL128 x7/9 on one node; correction factor by size
  // (1 GiB: none; 1 MiB: log2(2^20 / 64) = 14, Simple 0.5).
  const double gib = 1 << 30;
  expect_relative(nccl_algbw(s, NcclAlgorithm::kTree, NcclProtocol::kSimple, gib, links),
                  0.92 * links);
  expect_relative(nccl_algbw(s, NcclAlgorithm::kTree, NcclProtocol::kSimple, 1 << 20, links),
                  0.92 * 0.5 * links);
  expect_relative(nccl_algbw(s, NcclAlgorithm::kTree, NcclProtocol::kLL, gib, links),
                  0.92 * links / 3.8);
  expect_relative(nccl_algbw(s, NcclAlgorithm::kTree, NcclProtocol::kLL128, gib, links),
                  0.92 * 7 / 9 * links);
  // One GPU per node: LL128 ring x0.7; several nodes: LL capped by the CPU's row (Intel, 8
  // nodes: 20.4 GB/s).
  NcclSetting one = dgx(8);
  one.ranks = 8;
  expect_relative(nccl_algbw(one, NcclAlgorithm::kRing, NcclProtocol::kLL128, 1e6, links),
                  0.7 * links);
  expect_relative(nccl_algbw(one, NcclAlgorithm::kRing, NcclProtocol::kLL, 1e6, links),
                  20.4e9 / (2.0 * 7 / 8));
}

// Reduce-scatter and all-gather (tuning.cc: nsteps = P-1, nInterSteps = N-1, ring only, no
// plateau; LL at a third of the bus bandwidth on one node; algbw = busBw * P/(P-1)).
TEST(NcclReduceScatterAllGather, RingLatencyAtEightSixtyFourAndFiveHundredTwelveRanks) {
  for (CollectiveOp op : {CollectiveOp::kReduceScatter, CollectiveOp::kAllGather}) {
    SCOPED_TRACE(collective_op_key(op));
    const NcclSetting one = dgx(1);
    expect_relative(nccl_latency(one, NcclAlgorithm::kRing, NcclProtocol::kLL, 1e6, op),
                    (6.6 + 7 * (0.6 + 1)) * kUs);
    expect_relative(nccl_latency(one, NcclAlgorithm::kRing, NcclProtocol::kLL128, 1e6, op),
                    (14.0 + 7 * (1.9 + 1)) * kUs);
    expect_relative(nccl_latency(one, NcclAlgorithm::kRing, NcclProtocol::kSimple, 1e6, op),
                    (8.4 + 7 * (3.4 + 1)) * kUs);
    for (int nodes : {8, 64}) {  // p = 64 and 512
      SCOPED_TRACE(nodes);
      const NcclSetting s = dgx(nodes);
      const int p = 8 * nodes, steps = p - 1, inter = nodes - 1;
      expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kLL, 8, op),
                      (6.6 + (steps - inter) * 1.6 + inter * 4.7) * kUs);
      expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kLL128, 8, op),
                      (14.0 + (steps - inter) * 2.9 + inter * 6.0) * kUs);
      // Simple: no plateau factor, however large the call.
      expect_relative(nccl_latency(s, NcclAlgorithm::kRing, NcclProtocol::kSimple, 1e12, op),
                      (8.4 + (steps - inter) * 4.4 + inter * 16.0) * kUs);
    }
  }
}

TEST(NcclReduceScatterAllGather, ProtocolsDerateTheLinksAsTuningDoes) {
  const NcclSetting s = dgx(1);
  const double links = 100e9, ratio = 7.0 / 8;  // ring algbw -> busbw for P-1 steps
  const CollectiveOp op = CollectiveOp::kReduceScatter;
  expect_relative(nccl_algbw(s, NcclAlgorithm::kRing, NcclProtocol::kSimple, 1e6, links, op),
                  links);
  // LL on one node: a third of the bus bandwidth, at most 87.7 GB/s; on several, a quarter.
  expect_relative(nccl_algbw(s, NcclAlgorithm::kRing, NcclProtocol::kLL, 1e6, links, op),
                  links * ratio / 3 / ratio);
  expect_relative(nccl_algbw(s, NcclAlgorithm::kRing, NcclProtocol::kLL, 1e6, 1000e9, op),
                  87.7e9 / ratio);
  expect_relative(nccl_algbw(dgx(2), NcclAlgorithm::kRing, NcclProtocol::kLL, 1e6, 10e9, op),
                  10e9 / 4);
  expect_relative(nccl_algbw(s, NcclAlgorithm::kRing, NcclProtocol::kLL128, 1e6, links, op),
                  0.92 * links);
}

TEST(NcclChoice, SmallMessagesUseLLMediumLL128LargeSimple) {
  const NcclSetting s = dgx(4);
  const double links = 25e9 * 8 * 32 / 62.0;  // 8 rails of 25 GB/s, busbw 200 GB/s
  auto pick = [&](double bytes) {
    return nccl_choose(s, {{NcclAlgorithm::kRing, links}}, NcclProtocol::kAuto, bytes).protocol;
  };
  EXPECT_EQ(pick(8), NcclProtocol::kLL);
  EXPECT_EQ(pick(64e3), NcclProtocol::kLL);
  EXPECT_EQ(pick(4e6), NcclProtocol::kLL128);
  EXPECT_EQ(pick(4e9), NcclProtocol::kSimple);
  // LL128 off (PCIe inside the node, or no GPUDirect): LL until Simple takes over.
  NcclSetting pcie = s;
  pcie.ll128 = false;
  EXPECT_EQ(nccl_choose(pcie, {{NcclAlgorithm::kRing, links}}, NcclProtocol::kAuto, 40e6).protocol,
            NcclProtocol::kSimple);
  // A forced protocol is used whatever its cost.
  EXPECT_EQ(nccl_choose(s, {{NcclAlgorithm::kRing, links}}, NcclProtocol::kLL, 4e9).protocol,
            NcclProtocol::kLL);
  // Across algorithms: the tree's log2(nodes) latency wins small messages on 64 nodes.
  const NcclSetting big = dgx(64);
  const NcclChoice small =
      nccl_choose(big, {{NcclAlgorithm::kTree, links / 2}, {NcclAlgorithm::kRing, links}},
                  NcclProtocol::kAuto, 1024);
  EXPECT_EQ(small.algorithm, NcclAlgorithm::kTree);
}

TEST(NcclChoice, BusBandwidthRisesFromEightBytesToFourGibibytesOnOneNode) {
  const NcclSetting s = dgx(1);
  const double links = 230e9 * 8 / 14;  // busbw 230 GB/s
  double previous = 0;
  for (double bytes = 8; bytes <= 8e9; bytes *= 2) {
    const NcclChoice c =
        nccl_choose(s, {{NcclAlgorithm::kRing, links}}, NcclProtocol::kAuto, bytes);
    const double busbw = bytes / c.time(bytes) * 14 / 8;
    EXPECT_GE(busbw, previous) << bytes;
    previous = busbw;
  }
  // Latency-bound at 8 B (LL: 29 us, a quarter of the bus bandwidth), 97 % of the links at
  // 4 GiB.
  const NcclChoice tiny = nccl_choose(s, {{NcclAlgorithm::kRing, links}}, NcclProtocol::kAuto, 8);
  expect_relative(tiny.time(8), (6.6 + 14 * 1.6) * kUs + 8 / (230e9 / 4 * 8 / 14));
  EXPECT_GT(previous, 0.97 * 230e9);
}

TEST(NcclSettingOfACluster, FollowsTheTopology) {
  ClusterSpec c;
  c.nodes = 4;
  c.gpus_per_node = 8;
  c.gpu.compute_capability = 80;
  c.intra_node.kind = IntraNodeKind::kNvSwitch;
  c.intra_node.latency = 1e-6;
  c.nic.latency = 2e-6;
  c.nic.message_cost = 5e-6;
  NcclSetting s = nccl_setting(c, 8);
  EXPECT_EQ(s.ranks, 32);
  EXPECT_EQ(s.intra, NcclHardware::kNvLink);
  EXPECT_TRUE(s.ll128);
  EXPECT_DOUBLE_EQ(s.net_hop, 7e-6);
  c.nic.gpudirect = false;  // typeInter > PXB: no LL128 across nodes
  EXPECT_FALSE(nccl_setting(c, 8).ll128);
  c.nic.gpudirect = true;
  c.gpu.compute_capability = 89;  // Ada: not among NCCL's tested LL128 architectures
  EXPECT_FALSE(nccl_setting(c, 8).ll128);
  c.gpu.compute_capability = 80;
  c.intra_node.kind = IntraNodeKind::kPcie;
  s = nccl_setting(c, 8);
  EXPECT_EQ(s.intra, NcclHardware::kPci);
  EXPECT_FALSE(s.ll128);
}

}  // namespace
}  // namespace ddpsim

namespace ddpsim {
namespace {

// tuning.cc: NVLS charges its NVLink hop (23 us, base 0); NVLSTree adds 2 floor(log2 N) network
// hops of 14 us; both run Simple only, at 5/6 of NCCL's bus bandwidth.
TEST(NcclNvls, LatencyAtEightSixtyFourAndFiveHundredTwelveRanks) {
  for (int ranks : {8, 64, 512}) {
    SCOPED_TRACE(ranks);
    NcclSetting s;
    s.ranks = ranks;
    s.nodes = ranks / 8;
    s.compute_capability = 90;
    s.intra_hop = 1e-6;
    s.net_hop = 3e-6;
    const double nodes = s.nodes;
    const double want = s.nodes == 1 ? 24e-6 : (24 + 2 * std::floor(std::log2(nodes)) * 17) * 1e-6;
    const NcclAlgorithm a = s.nodes == 1 ? NcclAlgorithm::kNvls : NcclAlgorithm::kNvlsTree;
    EXPECT_NEAR(nccl_latency(s, a, NcclProtocol::kSimple, 1e9), want, 1e-6 * want);
  }
}

TEST(NcclNvls, BandwidthIsFiveSixthsOfTheBusSimpleOnly) {
  NcclSetting one;
  one.ranks = 8;
  one.compute_capability = 90;
  const double links = 300e9;
  // One node: the ports carry 9/8 of the buffer (in links_algbw already), moved at 5/6 of
  // their rate.
  EXPECT_NEAR(nccl_algbw(one, NcclAlgorithm::kNvls, NcclProtocol::kSimple, 1e9, links),
              links * 5 / 6, 1e-3);
  NcclSetting two = one;
  two.ranks = 16;
  two.nodes = 2;
  EXPECT_NEAR(nccl_algbw(two, NcclAlgorithm::kNvlsTree, NcclProtocol::kSimple, 1e9, links),
              links * 5 / 6, 1e-3);
  EXPECT_TRUE(nccl_algorithm_runs(NcclAlgorithm::kNvls, NcclProtocol::kSimple));
  EXPECT_FALSE(nccl_algorithm_runs(NcclAlgorithm::kNvls, NcclProtocol::kLL));
  EXPECT_FALSE(nccl_algorithm_runs(NcclAlgorithm::kNvlsTree, NcclProtocol::kLL128));
  // Forced LL: NCCL's choice falls to the ring; NVLS alone has nothing to run.
  const NcclChoice c = nccl_choose(
      one, {{NcclAlgorithm::kNvls, links}, {NcclAlgorithm::kRing, links}}, NcclProtocol::kLL, 1e9);
  EXPECT_EQ(c.algorithm, NcclAlgorithm::kRing);
  EXPECT_THROW(nccl_choose(one, {{NcclAlgorithm::kNvls, links}}, NcclProtocol::kLL, 1e9),
               std::invalid_argument);
  // Ports of B: the ring's flows reach B g / 2(g-1), NVLS's B g / (g+1); at 1 GB NCCL's choice
  // is NVLS (5/6 of 8/9 B against 8/14 B).
  const double port = 300e9;
  EXPECT_EQ(nccl_choose(
                one, {{NcclAlgorithm::kRing, port * 8 / 14}, {NcclAlgorithm::kNvls, port * 8 / 9}},
                NcclProtocol::kAuto, 1e9)
                .algorithm,
            NcclAlgorithm::kNvls);
}

TEST(NcclNvls, SupportedOnHopperNvSwitchNodesOnly) {
  ClusterSpec c;
  c.gpus_per_node = 8;
  c.intra_node.kind = IntraNodeKind::kNvSwitch;
  c.gpu.compute_capability = 90;
  EXPECT_TRUE(nvls_supported(c));
  c.gpu.compute_capability = 100;
  EXPECT_TRUE(nvls_supported(c));
  c.gpu.compute_capability = 80;
  EXPECT_FALSE(nvls_supported(c));
  c.gpu.compute_capability = 90;
  c.intra_node.kind = IntraNodeKind::kNvLinkMesh;
  EXPECT_FALSE(nvls_supported(c));
  c.intra_node.kind = IntraNodeKind::kNvSwitch;
  c.gpus_per_node = 1;
  EXPECT_FALSE(nvls_supported(c));
  // ncclNvlsInit (v2.18-v2.21) leaves NVLS off for gpuCount <= 2: two GPUs ring.
  c.gpus_per_node = 2;
  EXPECT_FALSE(nvls_supported(c));
  c.gpus_per_node = 3;
  EXPECT_TRUE(nvls_supported(c));
}

// PAT (NCCL 2.23.4's row, nccl_tuning.h), written out by hand: 8 + floor(log2 N) (14 + hop) / 3.5
// + 2.8 P us on N nodes of one GPU each; 0.85 of the ring's bus bandwidth; Simple only; never
// for all-reduce.
TEST(NcclPat, LatencyBandwidthAndWhereItRuns) {
  for (int nodes : {2, 64, 1000}) {
    SCOPED_TRACE(nodes);
    NcclSetting s;
    s.ranks = s.nodes = nodes;
    s.net_hop = 3e-6;
    const int log2n = nodes == 2 ? 1 : nodes == 64 ? 6 : 9;
    const double want = 8 + log2n * (14 + 3) / 3.5 + 2.8 * nodes;
    for (CollectiveOp op : {CollectiveOp::kAllGather, CollectiveOp::kReduceScatter})
      expect_relative(nccl_latency(s, NcclAlgorithm::kPat, NcclProtocol::kSimple, 1e6, op),
                      want * kUs);
    // The table scale multiplies NCCL's figures, not the cluster's hop.
    s.latency_scale = 2;
    expect_relative(
        nccl_latency(s, NcclAlgorithm::kPat, NcclProtocol::kSimple, 1e6, CollectiveOp::kAllGather),
        (16 + log2n * (28 + 3) / 3.5 + 5.6 * nodes) * kUs);
    const double ring = 20e9;  // the ring's algorithm bandwidth on these links
    expect_relative(nccl_algbw(s, NcclAlgorithm::kPat, NcclProtocol::kSimple, 1e6, ring,
                               CollectiveOp::kAllGather),
                    ring * (nodes - 1.0) / nodes * 0.85);
    EXPECT_THROW(nccl_latency(s, NcclAlgorithm::kPat, NcclProtocol::kSimple, 1e6),
                 std::invalid_argument);
  }
  EXPECT_TRUE(nccl_algorithm_runs(NcclAlgorithm::kPat, NcclProtocol::kSimple));
  EXPECT_FALSE(nccl_algorithm_runs(NcclAlgorithm::kPat, NcclProtocol::kLL));
  EXPECT_FALSE(nccl_algorithm_runs(NcclAlgorithm::kPat, NcclProtocol::kLL128));
}

// On 64 nodes of one GPU, NCCL's choice for an all-gather is PAT while its log latency beats
// the ring's 63 network steps, and the ring once PAT's 0.85 x 63/64 of the bandwidth costs more:
// by hand, the ring's best small-message protocol is LL (6.6 + 63 x (2.7 + 3) us = 365.7 us,
// at a quarter of the bus bandwidth), PAT 8 + 6 x 17 / 3.5 + 179.2 = 216.34 us; Simple's ring
// 8.4 + 63 x 17 = 1,079.4 us at the full bandwidth.
TEST(NcclPat, ChosenForSmallCallsOnOneGpuPerNodeAndTheRingForLargeOnes) {
  NcclSetting s;
  s.ranks = s.nodes = 64;
  s.net_hop = 3e-6;
  const double links = 25e9;
  const std::vector<NcclCandidate> both = {{NcclAlgorithm::kRing, links},
                                           {NcclAlgorithm::kPat, links}};
  const NcclChoice small =
      nccl_choose(s, both, NcclProtocol::kAuto, 65536, CollectiveOp::kAllGather);
  EXPECT_EQ(small.algorithm, NcclAlgorithm::kPat);
  expect_relative(small.latency, 216.34 * kUs, 1e-4);
  const NcclChoice large = nccl_choose(s, both, NcclProtocol::kAuto, 1e9, CollectiveOp::kAllGather);
  EXPECT_EQ(large.algorithm, NcclAlgorithm::kRing);
  EXPECT_EQ(large.protocol, NcclProtocol::kSimple);
  // Crossover with Simple's ring: 863.06 us = S / B (1 / (0.85 x 63/64) - 1) -> S = 110.6 MB.
  const double crossover = 863.06e-6 * links / (1 / (0.85 * 63 / 64) - 1);
  EXPECT_EQ(nccl_choose(s, both, NcclProtocol::kAuto, 0.98 * crossover, CollectiveOp::kAllGather)
                .algorithm,
            NcclAlgorithm::kPat);
  EXPECT_EQ(nccl_choose(s, both, NcclProtocol::kAuto, 1.02 * crossover, CollectiveOp::kAllGather)
                .algorithm,
            NcclAlgorithm::kRing);
  // A forced LL leaves PAT nothing to run.
  EXPECT_EQ(nccl_choose(s, both, NcclProtocol::kLL, 65536, CollectiveOp::kAllGather).algorithm,
            NcclAlgorithm::kRing);
}

}  // namespace
}  // namespace ddpsim
