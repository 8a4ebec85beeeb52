// Transports as they change the SimGrid routes (docs/transports.md): PCIe without peer-to-peer
// staged through host memory, PCIe switches, two sockets, NICs without GPUDirect RDMA, TCP's
// effective bandwidth and per-message cost; each against its closed form
// (collective_formulas.h) to 1e-6, and staged traffic sharing host memory with host-to-device
// copies. Then NCCL's latency model (nccl_tuning.h) charged by the simulated ring and tree at
// p = 8, 64 and 512, equal to tuning.cc's formulas written out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/traffic.h"
#include "sim/cost/collective_formulas.h"
#include "sim/cost/transport_rates.h"
#include "sim/platform/cluster_platform.h"
#include "tests/sim_harness.h"

namespace ddpsim {
namespace {

namespace sg4 = simgrid::s4u;
using testing::make_cluster;
using testing::run_in_engine;
using testing::time_allreduce;

constexpr double kS = 268435456.0;  // 256 MiB
constexpr double kUs = 1e-6;

void expect_relative(double got, double want, double tolerance = 1e-6) {
  EXPECT_NEAR(got, want, tolerance * want) << "relative error " << (got - want) / want;
}

std::function<std::unique_ptr<AllReduce>(Transport*)> ring(CollectiveCost cost = {}) {
  return [cost](Transport* t) { return make_ring_allreduce(t, CollectiveMode::kFlow, 0, cost); };
}
std::function<std::unique_ptr<AllReduce>(Transport*)> tree(CollectiveCost cost = {}) {
  return [cost](Transport* t) { return make_tree_allreduce(t, 0, cost); };
}

// One node of g GPUs on PCIe (32 GB/s), host memory 100 GB/s per socket, sockets 20 GB/s apart.
ClusterSpec pcie_node(int g, bool p2p, int sockets = 1) {
  ClusterSpec c = make_cluster(1, g);
  c.intra_node.kind = IntraNodeKind::kPcie;
  c.intra_node.p2p = p2p;
  c.host.sockets = sockets;
  c.host.bandwidth = 100e9;
  c.host.socket_link = 20e9;
  return c;
}

PcieNodeLinks links_of(const ClusterSpec& c) {
  PcieNodeLinks l;
  l.gpus = c.gpus_per_node;
  l.sockets = c.host.sockets;
  l.p2p = c.intra_node.p2p;
  l.pcie_bandwidth = c.pcie_bandwidth;
  l.host_bandwidth = c.host.bandwidth;
  l.socket_bandwidth = c.host.socket_link;
  l.alpha = c.intra_node.latency;
  return l;
}

// The route from rank `from` to rank `to`, by link name, after the platform's route self-test.
void expect_route(const ClusterSpec& spec, int from, int to, const std::string& want) {
  run_in_engine([&]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(spec, {});
    const std::string error = self_test_routes(pf);
    if (!error.empty()) throw std::runtime_error(error);
    std::vector<sg4::Link*> links;
    double latency = 0;
    pf.gpus[from]->route_to(pf.gpus[to], links, &latency);
    std::string got;
    for (auto* l : links) got += (got.empty() ? "" : " ") + l->get_name();
    if (got != want) throw std::runtime_error("route is [" + got + "], want [" + want + "]");
    return {};
  });
}

// ---------------------------------------------------------------- routes

TEST(TransportRoutes, StagedTrafficCrossesHostMemoryTwice) {
  expect_route(pcie_node(4, false), 0, 3, "n0.gpu0.pcie.up n0.host0 n0.host0 n0.gpu3.pcie.down");
  expect_route(pcie_node(4, true), 0, 3, "n0.gpu0.pcie.up n0.gpu3.pcie.down");
}

TEST(TransportRoutes, SocketsAndSwitchesAddTheirLinks) {
  ClusterSpec c = pcie_node(8, true, 2);
  c.pcie_switch = {2, 16e9};
  // Same switch: peer-to-peer below it; another switch of the socket: through the uplinks.
  expect_route(c, 0, 1, "n0.gpu0.pcie.up n0.gpu1.pcie.down");
  expect_route(c, 0, 2, "n0.gpu0.pcie.up n0.switch0.up n0.switch1.down n0.gpu2.pcie.down");
  // Another socket: staged through socket 0's memory, then the socket link.
  expect_route(c, 1, 6,
               "n0.gpu1.pcie.up n0.switch0.up n0.host0 n0.host0 n0.socket.up "
               "n0.switch3.down n0.gpu6.pcie.down");
  expect_route(c, 6, 1,
               "n0.gpu6.pcie.up n0.switch3.up n0.host1 n0.host1 n0.socket.down "
               "n0.switch0.down n0.gpu1.pcie.down");
}

TEST(TransportRoutes, NicsWithoutGpuDirectStageThroughHostMemory) {
  ClusterSpec c = make_cluster(2, 4, 2);
  c.host.sockets = 2;
  c.nic.gpudirect = false;
  // GPU 1 (socket 0) uses NIC 0 (socket 0); GPU 2 of node 1 (socket 1) NIC 1 (socket 1).
  expect_route(c, 1, 6,
               "n0.gpu1.pcie.up n0.host0 n0.host0 n0.nic0.up n1.nic1.down n1.host1 n1.host1 "
               "n1.gpu2.pcie.down");
  c.nic.count = 1;  // GPU 2 of node 0 reaches the only NIC across the socket link
  expect_route(c, 2, 4,
               "n0.gpu2.pcie.up n0.host1 n0.host1 n0.socket.down n0.nic0.up n1.nic0.down "
               "n1.host0 n1.host0 n1.gpu0.pcie.down");
}

// ---------------------------------------------------------------- closed forms

TEST(StagedPcie, RingWithoutP2pIsBoundByHostMemory) {
  for (int g : {2, 4, 8}) {
    SCOPED_TRACE(g);
    const ClusterSpec c = pcie_node(g, false);
    const double t = time_allreduce(c, ring(), kS);
    expect_relative(t, pcie_ring_allreduce_time(links_of(c), kS));
    // Host memory moves 2 g V, which binds before the 32 GB/s PCIe links from g = 2 on.
    const double v = 2.0 * (g - 1) / g * kS;
    expect_relative(t, v * std::max(1 / 32e9, 2.0 * g / 100e9) + 2 * (g - 1) * 1e-6);
  }
}

TEST(StagedPcie, TwoSocketsStageOnlyAcrossWithP2pAndEverythingWithout) {
  for (bool p2p : {true, false}) {
    SCOPED_TRACE(p2p);
    const ClusterSpec c = pcie_node(8, p2p, 2);
    const double t = time_allreduce(c, ring(), kS);
    expect_relative(t, pcie_ring_allreduce_time(links_of(c), kS));
    const double v = 2.0 * 7 / 8 * kS;
    // p2p: the socket link (20 GB/s) binds; without: each socket's memory carries 2 x 4 V.
    expect_relative(t, v * (p2p ? 1 / 20e9 : 8 / 100e9) + 14e-6);
  }
}

TEST(PcieSwitch, RingCrossesEachUplinkOnceEachWay) {
  ClusterSpec c = pcie_node(8, true);
  c.pcie_switch = {4, 8e9};
  const double v = 2.0 * 7 / 8 * kS;
  expect_relative(time_allreduce(c, ring(), kS), v / 8e9 + 14e-6);
  c.pcie_switch.uplink = 64e9;  // faster than the GPUs' own links
  expect_relative(time_allreduce(c, ring(), kS), v / 32e9 + 14e-6);
}

TEST(StagedPcie, StagedTrafficSharesHostMemoryWithHostToDeviceCopies) {
  // Two GPUs without P2P exchange S each way (4 S through host memory) while the CPU copies S
  // to GPU 0 (S through host memory): max-min gives each flow H/5, so all end at 5 S / H;
  // without the copy the exchange ends at 4 S / H.
  ClusterSpec c = pcie_node(2, false);
  c.host.bandwidth = 10e9;
  c.intra_node.latency = 0;
  std::vector<double> v = run_in_engine([&]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(c, {});
    Transport transport(pf, nullptr);
    auto allreduce = make_ring_allreduce(&transport, CollectiveMode::kFlow, 0);
    double ring_end = 0, copy_end = 0;
    for (int r = 0; r < 2; ++r)
      sg4::Actor::create("rank" + std::to_string(r), pf.gpus[r], [&, r] {
        allreduce->run(r, 1, kS);
        ring_end = std::max(ring_end, sg4::Engine::get_clock());
      });
    sg4::Actor::create("h2d", pf.node_cpus[0], [&] {
      transport.isend(pf.node_cpus[0], pf.gpus[0], "h2d", kS, false)->wait();
    });
    sg4::Actor::create("h2d-sink", pf.gpus[0], [&] {
      transport.irecv("h2d")->wait();
      copy_end = sg4::Engine::get_clock();
    });
    sg4::Engine::get_instance()->run();
    return {ring_end, copy_end};
  });
  ASSERT_EQ(v.size(), 2u);
  expect_relative(v[0], 5 * kS / 10e9);
  expect_relative(v[1], 5 * kS / 10e9);
  expect_relative(time_allreduce(c, ring(), kS), 4 * kS / 10e9);
}

TEST(TcpTransport, EffectiveBandwidthIsStreamsOrHeadersWhicheverBinds) {
  // 100 Gb/s: 2 streams of 2.5 GB/s reach 40 %; 8 reach the header ceiling 1448/1538.
  expect_relative(tcp_efficiency(12.5e9, 2, 2.5e9), 0.4, 1e-12);
  expect_relative(tcp_efficiency(12.5e9, 8, 2.5e9), 1448.0 / 1538.0, 1e-12);
  expect_relative(tcp_efficiency(1.25e9, 1, 2.5e9), 1448.0 / 1538.0, 1e-12);
}

ClusterSpec tcp_cluster(int nodes, double host_bandwidth) {
  ClusterSpec c = make_cluster(nodes, 1);
  c.nic.bandwidth = 12.5e9;  // 100 Gb/s
  c.nic.transport = NicTransport::kTcp;
  c.nic.gpudirect = false;
  c.nic.streams = 2;
  c.nic.stream_bandwidth = 2.5e9;
  c.nic.efficiency = tcp_efficiency(12.5e9, 2, 2.5e9);  // 5 GB/s
  c.nic.message_cost = 10e-6;
  c.host.bandwidth = host_bandwidth;
  return c;
}

TEST(TcpTransport, RingMatchesTheStagedNicClosedForm) {
  for (double host : {100e9, 10e9}) {  // NIC-bound (5 GB/s), then host-bound (10/4 GB/s)
    SCOPED_TRACE(host);
    const ClusterSpec c = tcp_cluster(4, host);
    const double want = staged_nic_ring_allreduce_time(4, kS, 32e9, host, 5e9, 3e-6 + 10e-6);
    expect_relative(time_allreduce(c, ring(), kS), want);
    const double v = 1.5 * kS;
    expect_relative(want, v / std::min(5e9, host / 4) + 6 * 13e-6);
  }
  // The same cluster over RDMA with GPUDirect: the NIC's full 12.5 GB/s, no per-message cost.
  ClusterSpec rdma = make_cluster(4, 1);
  rdma.nic.bandwidth = 12.5e9;
  expect_relative(time_allreduce(rdma, ring(), kS), 1.5 * kS / 12.5e9 + 6 * 3e-6);
}

TEST(TcpTransport, HalvingDoublingPaysTheMessageCostEveryStep) {
  ClusterSpec c = tcp_cluster(8, 1e12);
  const double t = time_allreduce(c, make_halving_doubling_allreduce, kS);
  // log2(8) = 3 steps each way, each message alpha + c; every GPU's data crosses host memory
  // twice out and twice in, far from binding here.
  expect_relative(t, halving_doubling_time(8, kS, 5e9, 3e-6 + 10e-6));
}

// ---------------------------------------------------------------- NCCL latency in the simulation

CollectiveCost nccl(NcclProtocol p = NcclProtocol::kSimple) { return {LatencyModel::kNccl, p}; }

ClusterSpec dgx(int nodes) {  // 8 GPUs, NVSwitch 200 GB/s, 8 NICs of 25 GB/s, sm80
  ClusterSpec c = make_cluster(nodes, 8, 8);
  c.gpu.compute_capability = 80;
  return c;
}

TEST(NcclLatencyInSimulation, RingAtEightSixtyFourAndFiveHundredTwelveRanks) {
  // One node: V / 200 GB/s + baseLat + 2(p-1)(hwLat[NVLink] + 1 us link latency).
  const double v8 = 2.0 * 7 / 8 * kS;
  expect_relative(time_allreduce(dgx(1), ring(nccl()), kS),
                  v8 / 200e9 + (8.4 + 14 * (3.4 + 1)) * kUs);
  // 8 and 64 nodes: 8 rings, one per NIC, each V/8 through a 25 GB/s NIC; intra-node steps at
  // max(3.4 + 1, 3 x 1 us Intel overhead), 2N network steps at 14 + 3 us, x1.4 (sm80) plateau.
  for (int nodes : {8, 64}) {
    SCOPED_TRACE(nodes);
    const int p = 8 * nodes, steps = 2 * (p - 1), inter = 2 * nodes;
    const double v = 2.0 * (p - 1) / p * kS;
    expect_relative(time_allreduce(dgx(nodes), ring(nccl()), kS),
                    v / 8 / 25e9 + 1.4 * (8.4 + (steps - inter) * 4.4 + inter * 17.0) * kUs);
  }
}

TEST(NcclLatencyInSimulation, SmallRingCallsUseLLAndItsBandwidthCeiling) {
  // 64 KiB on one DGX: NCCL picks LL (6.6 + 14 x 1.6 us) whose bus bandwidth is a quarter of
  // the links' 200 GB/s (50 GB/s < the 87.7 GB/s LL ceiling); algbw = busbw x 8 / 14.
  const double s = 65536;
  expect_relative(time_allreduce(dgx(1), ring(nccl(NcclProtocol::kAuto)), s),
                  s / (50e9 * 8 / 14) + (6.6 + 14 * 1.6) * kUs);
}

TEST(NcclLatencyInSimulation, TreeAtEightSixtyFourAndFiveHundredTwelveRanks) {
  // One GPU per node: the double binary tree moves 2 S through the busiest NIC; Simple's tree
  // ceiling is 0.92 of that (1 GiB: no size correction); latency 2 floor(log2 N) (28 + 3) us.
  const double s = 1 << 30;
  for (int nodes : {8, 64, 512}) {
    SCOPED_TRACE(nodes);
    ClusterSpec c = make_cluster(nodes, 1);
    c.gpu.compute_capability = 80;
    const int depth = static_cast<int>(std::log2(nodes));
    expect_relative(time_allreduce(c, tree(nccl()), s),
                    2 * s / 25e9 / 0.92 + 2 * depth * 31.0 * kUs);
  }
  // One DGX (p = 8): a chain moving 2 S over NVSwitch, 2 x 7 intra hops of 28 + 1 us.
  expect_relative(time_allreduce(dgx(1), tree(nccl()), s), 2 * s / 200e9 / 0.92 + 14 * 29.0 * kUs);
}

TEST(NcclLatencyInSimulation, AutoTakesNcclsChoiceAndReportsTheProtocol) {
  // 64 single-GPU nodes: 1 KiB goes by tree with LL (6.8 + 2 x 6 x (5 + 3) us against the ring's
  // 128 network hops), 4 MiB by tree with LL128 (152 us + 4 MiB at 0.92 x 120/128 x 0.8 of the
  // links), 1 GiB by ring with Simple; one DGX goes LL, LL128, Simple as the size grows.
  ClusterSpec wide = make_cluster(64, 1);
  wide.gpu.compute_capability = 80;
  auto picks = [](const ClusterSpec& c) {
    return run_in_engine([&]() -> std::vector<double> {
      ClusterPlatform pf = build_cluster_platform(c, {});
      Transport transport(pf, nullptr);
      auto a = make_auto_allreduce(&transport, CollectiveMode::kFlow, 0, nccl(NcclProtocol::kAuto));
      std::vector<double> out;
      for (double bytes : {1024.0, 4194304.0, 1073741824.0}) {
        const std::string label = a->algorithm_for(bytes);
        out.push_back(label == "tree/LL (auto)"       ? 1
                      : label == "ring/LL128 (auto)"  ? 2
                      : label == "ring/Simple (auto)" ? 3
                      : label == "ring/LL (auto)"     ? 4
                      : label == "tree/LL128 (auto)"  ? 5
                                                      : 0);
      }
      return out;
    });
  };
  EXPECT_EQ(picks(wide), (std::vector<double>{1, 5, 3}));
  EXPECT_EQ(picks(dgx(1)), (std::vector<double>{4, 2, 3}));
}

TEST(NcclLatencyInSimulation, AlphaModelKeepsTheClassicRingClosedForm) {
  const double v = 2.0 * 63 / 64 * kS;
  expect_relative(time_allreduce(dgx(8), ring(), kS), v / 8 / 25e9 + 2 * 63 * 3e-6);
}

}  // namespace
}  // namespace ddpsim
