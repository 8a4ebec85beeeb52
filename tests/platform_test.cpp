// The SimGrid platform: routes traverse exactly the links the topology promises, capacities are
// the configured ones, and the network model reproduces alpha-beta times and fair sharing.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string>
#include <vector>
#include <xbt/config.hpp>

#include "sim/collectives/traffic.h"
#include "sim/platform/cluster_platform.h"
#include "tests/sim_harness.h"

namespace ddpsim {
namespace {

namespace sg4 = simgrid::s4u;
using testing::make_cluster;
using testing::run_in_engine;

// Builds the platform in a child engine and returns {self-test passed, gpus, cpus}; prints the
// self-test's complaint if any.
std::vector<double> self_test(const ClusterSpec& spec, const PlatformExtras& extras = {}) {
  return run_in_engine([&]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(spec, extras);
    const std::string error = self_test_routes(pf);
    if (!error.empty()) throw std::runtime_error(error);
    return {1, static_cast<double>(pf.gpus.size()), static_cast<double>(pf.node_cpus.size())};
  });
}

TEST(PlatformRoutes, SingleNodeOfEightGpus) {
  EXPECT_EQ(self_test(make_cluster(1, 8)), (std::vector<double>{1, 8, 1}));
}

TEST(PlatformRoutes, TwoNodesOnOneLeaf) {
  EXPECT_EQ(self_test(make_cluster(2, 4, 2)), (std::vector<double>{1, 8, 2}));
}

TEST(PlatformRoutes, FortyNodesOnThreeLeaves) {
  EXPECT_EQ(self_test(make_cluster(40, 2)), (std::vector<double>{1, 80, 40}));
}

TEST(PlatformRoutes, EightGpusWithOneFourOrEightNics) {
  for (int nics : {1, 4, 8}) {
    SCOPED_TRACE(nics);
    EXPECT_EQ(self_test(make_cluster(20, 8, nics)), (std::vector<double>{1, 160, 20}));
  }
}

TEST(PlatformRoutes, PcieOnlyNodesCarryGpuTrafficOverPcie) {
  ClusterSpec spec = make_cluster(3, 4);
  spec.intra_node.kind = IntraNodeKind::kPcie;
  spec.fabric.nodes_per_leaf = 2;
  EXPECT_EQ(self_test(spec), (std::vector<double>{1, 12, 3}));
}

TEST(PlatformRoutes, ServersAndStorageHangOffTheSpine) {
  PlatformExtras extras;
  extras.dedicated_servers = 3;
  extras.server_bandwidth = 50e9;
  extras.shared_storage = true;
  extras.storage_bandwidth = 10e9;
  EXPECT_EQ(self_test(make_cluster(20, 8, 4), extras), (std::vector<double>{1, 160, 20}));
  extras.storage_client_bandwidth = 2e9;
  EXPECT_EQ(self_test(make_cluster(20, 8, 4), extras), (std::vector<double>{1, 160, 20}));
}

// Spelled out by name so the test does not rely on expected_route() being right.
TEST(PlatformRoutes, CrossLeafGpuRouteUsesBothGpusPcieAndNicsAndBothUplinks) {
  auto ok = run_in_engine([]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(make_cluster(20, 8, 4), {});
    std::vector<sg4::Link*> links;
    double latency = 0;  // route_to adds the links' latencies to it
    pf.gpus[3]->route_to(pf.gpus[17 * 8 + 6], links, &latency);
    std::vector<std::string> names;
    for (auto* l : links) names.push_back(l->get_name());
    const std::vector<std::string> want = {"n0.gpu3.pcie.up", "n0.nic1.up",
                                           "leaf0.up",        "leaf1.down",
                                           "n17.nic3.down",   "n17.gpu6.pcie.down"};
    if (names != want || latency != 0) {
      std::string got;
      for (const auto& n : names) got += n + " ";
      throw std::runtime_error("unexpected cross-leaf route: " + got);
    }
    links.clear();
    pf.gpus[2]->route_to(pf.gpus[5], links, &latency);
    if (links.size() != 2 || links[0]->get_name() != "n0.gpu2.nvl.up" ||
        links[1]->get_name() != "n0.gpu5.nvl.down")
      throw std::runtime_error("unexpected intra-node route");
    return {1};
  });
  EXPECT_EQ(ok, std::vector<double>{1});
}

TEST(PlatformRoutes, SelfTestReportsARouteThatDiffersFromTheTopology) {
  auto reported = run_in_engine([]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(make_cluster(2, 8, 8), {});
    std::swap(pf.node_links[0].nic_up[0], pf.node_links[0].nic_up[1]);  // wrong expectation
    const std::string error = self_test_routes(pf);
    const bool names_route = error.find("n0.gpu0 -> n1.gpu1") != std::string::npos;
    return {static_cast<double>(!error.empty()), static_cast<double>(names_route)};
  });
  EXPECT_EQ(reported, (std::vector<double>{1, 1}));
}

TEST(PlatformRoutes, ClassCountsMatchRouteToForEveryHostPair) {
  auto mismatches = run_in_engine([]() -> std::vector<double> {
    PlatformExtras extras;
    extras.dedicated_servers = 2;
    extras.server_bandwidth = 25e9;
    extras.shared_storage = true;
    extras.storage_bandwidth = 5e9;
    extras.storage_client_bandwidth = 1e9;
    ClusterSpec spec = make_cluster(5, 4, 2);
    spec.fabric.nodes_per_leaf = 2;
    ClusterPlatform pf = build_cluster_platform(spec, extras);
    double bad = 0, pairs = 0;
    for (const auto& [a, pa] : pf.places) {
      for (const auto& [b, pb] : pf.places) {
        if (a == b) continue;  // SimGrid's own loopback link; the simulation never sends to self
        std::vector<sg4::Link*> links;
        a->route_to(b, links, nullptr);
        std::array<int, kLinkClasses> n{};
        for (auto* l : links) ++n[static_cast<int>(pf.link_classes.at(l))];
        bad += n != route_class_counts(pf, a, b);
        ++pairs;
      }
    }
    return {bad, pairs};
  });
  const double hosts = 5 * 4 + 5 + 2 + 1;
  EXPECT_EQ(mismatches, (std::vector<double>{0, hosts * (hosts - 1)}));
}

TEST(PlatformCapacities, LinksHaveTheConfiguredBandwidths) {
  auto bw = run_in_engine([]() -> std::vector<double> {
    ClusterSpec spec = make_cluster(40, 8, 4);
    spec.fabric.oversubscription = 2.0;
    PlatformExtras extras;
    extras.dedicated_servers = 1;
    extras.server_bandwidth = 50e9;
    extras.shared_storage = true;
    extras.storage_bandwidth = 10e9;
    ClusterPlatform pf = build_cluster_platform(spec, extras);
    const NodeLinks& nl = pf.node_links[7];
    return {nl.intra_up[3]->get_bandwidth(),        nl.intra_down[3]->get_bandwidth(),
            nl.pcie_up[3]->get_bandwidth(),         nl.nic_down[2]->get_bandwidth(),
            pf.leaf_up[2]->get_bandwidth(),         pf.leaf_down[0]->get_bandwidth(),
            pf.server_up[0]->get_bandwidth(),       pf.storage_up->get_bandwidth(),
            static_cast<double>(pf.leaf_up.size()), nl.nic_up[0]->get_latency()};
  });
  const double uplink = 16 * 4 * 25e9 / 2.0;
  EXPECT_EQ(bw, (std::vector<double>{200e9, 200e9, 32e9, 25e9, uplink, uplink, 50e9, 10e9, 3, 0}));
}

TEST(PlatformLatency, IntraNodeAndNicAlphas) {
  auto alpha = run_in_engine([]() -> std::vector<double> {
    PlatformExtras extras;
    extras.dedicated_servers = 1;
    extras.server_bandwidth = 25e9;
    ClusterPlatform pf = build_cluster_platform(make_cluster(2, 4), extras);
    return {message_latency(pf, pf.gpus[0], pf.gpus[0]),
            message_latency(pf, pf.gpus[0], pf.gpus[3]),
            message_latency(pf, pf.node_cpus[0], pf.gpus[1]),
            message_latency(pf, pf.gpus[0], pf.gpus[4]),
            message_latency(pf, pf.servers[0], pf.gpus[4])};
  });
  EXPECT_EQ(alpha, (std::vector<double>{0, 1e-6, 1e-6, 3e-6, 3e-6}));
}

// Runs one message per (from, to) pair, all starting at t = 0 through the Transport, and returns
// each message's completion time.
std::vector<double> transfer_times(const ClusterSpec& spec,
                                   const std::vector<std::pair<int, int>>& gpu_pairs,
                                   double bytes) {
  return run_in_engine([&]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(spec, {});
    TrafficCounters counters;
    Transport transport(pf, &counters);
    std::vector<double> done(gpu_pairs.size());
    for (size_t i = 0; i < gpu_pairs.size(); ++i) {
      const auto [from, to] = gpu_pairs[i];
      const std::string box = "m" + std::to_string(i);
      sg4::Actor::create("recv" + std::to_string(i), pf.gpus[to],
                         [&transport, box] { transport.irecv(box)->wait(); });
      sg4::Actor::create("send" + std::to_string(i), pf.gpus[from], [&, i, from, to, box] {
        transport.isend(pf.gpus[from], pf.gpus[to], box, bytes)->wait();
        done[i] = sg4::Engine::get_clock();
      });
    }
    sg4::Engine::get_instance()->run();
    return done;
  });
}

TEST(NetworkModel, OneMessageTakesAlphaPlusBytesOverBandwidth) {
  const ClusterSpec spec = make_cluster(2, 1);  // NIC 25 GB/s, PCIe 32 GB/s, alpha 3 us
  const double bytes = 1e9;
  auto t = transfer_times(spec, {{0, 1}}, bytes);
  ASSERT_EQ(t.size(), 1u);
  EXPECT_NEAR(t[0], 3e-6 + bytes / 25e9, 1e-12);  // LV08 would give 13.01*alpha + S/(0.97*B)
}

TEST(NetworkModel, OppositeDirectionsDoNotShareCapacity) {
  const double bytes = 1e9;
  auto t = transfer_times(make_cluster(2, 1), {{0, 1}, {1, 0}}, bytes);
  ASSERT_EQ(t.size(), 2u);
  EXPECT_NEAR(t[0], 3e-6 + bytes / 25e9, 1e-12);
  EXPECT_NEAR(t[1], 3e-6 + bytes / 25e9, 1e-12);
}

TEST(NetworkModel, FlowsOfDifferentRouteLengthsShareANicEqually) {
  // GPU 0 (node 0) sends to node 1 (same leaf) and to node 20 (other leaf) through its one NIC.
  ClusterSpec spec = make_cluster(21, 1);
  const double bytes = 1e9;
  auto t = transfer_times(spec, {{0, 1}, {0, 20}}, bytes);
  ASSERT_EQ(t.size(), 2u);
  // The Transport sleeps alpha in each sender actor; both then share 25 GB/s equally.
  EXPECT_NEAR(t[0], 3e-6 + 2 * bytes / 25e9, 1e-12);
  EXPECT_NEAR(t[1], 3e-6 + 2 * bytes / 25e9, 1e-12);
}

TEST(NetworkModel, TransportCountsBytesPerEndpointAndLinkClass) {
  auto counts = run_in_engine([]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(make_cluster(20, 2), {});
    TrafficCounters c;
    Transport transport(pf, &c);
    transport.account(pf.gpus[0], pf.gpus[1], 100);        // same node: 2 intra-node links
    transport.account(pf.gpus[0], pf.gpus[2], 10);         // same leaf: pcie, nic, nic, pcie
    transport.account(pf.gpus[1], pf.gpus[39], 1);         // other leaf: + 2 fabric links
    transport.account(pf.node_cpus[3], pf.gpus[7], 1000);  // cpu -> own gpu: pcie
    return {c.sent[pf.gpus[0]],     c.sent[pf.gpus[1]],   c.received[pf.gpus[39]],
            c.received[pf.gpus[7]], c.messages,           c.bytes_per_class[0],
            c.bytes_per_class[1],   c.bytes_per_class[2], c.bytes_per_class[3],
            c.bytes_per_class[4]};
  });
  EXPECT_EQ(counts, (std::vector<double>{110, 1, 1, 1000, 4, 200, 1022, 22, 2, 0}));
}

TEST(NetworkModel, ConfigurationIsCm02WithoutCrossTrafficOrGammaCap) {
  auto cfg = run_in_engine([]() -> std::vector<double> {
    build_cluster_platform(make_cluster(1, 1), {});
    using simgrid::config::get_value;
    return {static_cast<double>(get_value<std::string>("network/model") == "CM02"),
            static_cast<double>(get_value<bool>("network/crosstraffic")),
            get_value<double>("network/TCP-gamma"),
            static_cast<double>(get_value<int>("contexts/stack-size"))};
  });
  EXPECT_EQ(cfg, (std::vector<double>{1, 0, 1e30, 128}));
}

// Built at the largest supported size (8192 GPUs), routes still self-test; prints build time.
TEST(PlatformScale, ThousandTwentyFourNodesOfEightGpusBuildAndRouteCorrectly) {
  auto r = run_in_engine([]() -> std::vector<double> {
    const auto wall0 = std::chrono::steady_clock::now();
    const std::clock_t cpu0 = std::clock();
    ClusterPlatform pf = build_cluster_platform(make_cluster(1024, 8, 8), {});
    const double cpu_s = static_cast<double>(std::clock() - cpu0) / CLOCKS_PER_SEC;
    const double wall_s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    const std::string error = self_test_routes(pf);
    if (!error.empty()) throw std::runtime_error(error);
    return {static_cast<double>(pf.gpus.size()), cpu_s, wall_s};
  });
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0], 8192);
  std::printf("platform build, 1024 nodes x 8 GPUs: %.2f s CPU, %.2f s wall\n", r[1], r[2]);
}

}  // namespace
}  // namespace ddpsim
