// Per-link utilisation: every byte a collective puts on a link is counted on that link, exactly
// (the meter against the Transport's independent per-class counts and against closed forms),
// the measured window cuts a flow at the bytes it had moved, and the link that binds a
// communication-bound run is the one named (an oversubscribed leaf uplink, a NIC).
#include "sim/engine/link_usage.h"

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "sim/cli/summary_table.h"
#include "sim/collectives/link_meter.h"
#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "tests/nic_bound_cluster.h"
#include "tests/sim_harness.h"

namespace ddpsim {
namespace {

namespace sg4 = simgrid::s4u;
using testing::make_cluster;
using testing::model_of;
using testing::nic_bound;
using testing::plan_of;
using testing::run_in_engine;

using MakeAllReduce = std::function<std::unique_ptr<AllReduce>(Transport*)>;

// One all-reduce of `bytes` on `spec`, metered over the whole run. Returns, per link class, the
// meter's bytes summed over the class's links and then the Transport's own count
// (bytes x links of the class crossed, from route_class_counts); then every link's bytes in
// catalogue order.
std::vector<double> metered_allreduce(const ClusterSpec& spec, const MakeAllReduce& make,
                                      double bytes) {
  return run_in_engine([&]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(spec, {});
    TrafficCounters counters;
    LinkMeter meter(pf);
    meter.open_window();
    Transport transport(pf, &counters, &meter);
    auto algorithm = make(&transport);
    for (size_t r = 0; r < pf.gpus.size(); ++r)
      sg4::Actor::create("rank" + std::to_string(r), pf.gpus[r],
                         [&, r] { algorithm->run(static_cast<int>(r), 1, bytes); });
    sg4::Engine::get_instance()->run();
    meter.close_window();
    meter.settle();
    std::vector<double> per_class(kLinkClasses, 0.0);
    for (size_t i = 0; i < meter.catalogue().links.size(); ++i)
      per_class[static_cast<int>(meter.catalogue().links[i].link_class)] +=
          meter.totals()[i].flow_bytes;
    std::vector<double> out = per_class;
    out.insert(out.end(), counters.bytes_per_class.begin(), counters.bytes_per_class.end());
    for (const LinkTotals& t : meter.totals()) out.push_back(t.flow_bytes);
    return out;
  });
}

TEST(LinkMeter, EveryAlgorithmPutsOnEachClassExactlyWhatTheTransportSent) {
  ClusterSpec spec = make_cluster(2, 4, 2);
  const double bytes = 48e6;
  const std::vector<std::pair<std::string, MakeAllReduce>> algorithms = {
      {"ring flow", [](Transport* t) { return make_ring_allreduce(t, CollectiveMode::kFlow, 0); }},
      {"ring chunked",
       [](Transport* t) { return make_ring_allreduce(t, CollectiveMode::kChunked, 0); }},
      {"tree", [](Transport* t) { return make_tree_allreduce(t, 0); }},
      {"halving-doubling", [](Transport* t) { return make_halving_doubling_allreduce(t); }},
      {"hierarchical", [](Transport* t) { return make_hierarchical_allreduce(t); }},
  };
  for (const auto& [name, make] : algorithms) {
    const std::vector<double> v = metered_allreduce(spec, make, bytes);
    ASSERT_GE(v.size(), 2u * kLinkClasses) << name;
    double total = 0;
    for (int c = 0; c < kLinkClasses; ++c) {
      EXPECT_NEAR(v[c], v[kLinkClasses + c], 1e-9 * v[kLinkClasses + c])
          << name << ", class " << link_class_name(static_cast<LinkClass>(c));
      total += v[c];
    }
    EXPECT_GT(total, bytes) << name;
  }
}

TEST(LinkMeter, RingAndHalvingDoublingPutTheClosedFormOnEveryNicAndPcieLink) {
  // 4 nodes x 1 GPU: every link of a GPU's route out (pcie tx, nic tx) and in (nic rx, pcie rx)
  // carries 2(p-1)/p x S for both algorithms; the NVLink, host and fabric links carry nothing.
  const ClusterSpec spec = make_cluster(4, 1);
  const double bytes = 40e6, p = 4;
  const double expected = 2 * (p - 1) / p * bytes;
  for (bool ring : {true, false}) {
    const MakeAllReduce make =
        ring ? MakeAllReduce(
                   [](Transport* t) { return make_ring_allreduce(t, CollectiveMode::kFlow, 1); })
             : MakeAllReduce([](Transport* t) { return make_halving_doubling_allreduce(t); });
    const std::vector<double> v = metered_allreduce(spec, make, bytes);
    // The catalogue, per node: nvlink tx/rx, pcie tx/rx, host memory, nic tx/rx (link_names.h);
    // then the leaf's up and down links, which carry nothing (16 nodes per leaf).
    const size_t per_node = 7, links = v.size() - 2 * kLinkClasses;
    ASSERT_EQ(links, 4 * per_node + 2) << "catalogue changed";
    for (int node = 0; node < 4; ++node)
      for (size_t k = 0; k < per_node; ++k) {
        const double got = v[2 * kLinkClasses + node * per_node + k];
        // A one-GPU node never uses NVLink; GPU-to-GPU traffic never crosses host memory.
        const double want = k < 2 || k == 4 ? 0.0 : expected;
        EXPECT_NEAR(got, want, 1e-9 * expected)
            << (ring ? "ring" : "halving-doubling") << ", node " << node << ", link " << k;
      }
    EXPECT_EQ(v[v.size() - 2], 0.0);  // leaf0 up
    EXPECT_EQ(v[v.size() - 1], 0.0);
  }
}

TEST(LinkMeter, TheWindowCutsAFlowAtTheBytesItHadMovedAndCountsAccountedBytesInsideIt) {
  // One 1 GB flow GPU 0 -> GPU 1 across two single-GPU nodes: 25 GB/s at the NIC (PCIe 32),
  // matched at 5 ms. The window opens at 15 ms and closes at 35 ms: 0.5 GB on each link of its
  // route, busy 20 ms.
  // Bytes accounted (no flow) count whole inside the window, not outside it.
  const std::vector<double> v = run_in_engine([]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(make_cluster(2, 1), {});
    LinkMeter meter(pf);
    Transport transport(pf, nullptr, &meter);
    sg4::Actor::create("sender", pf.gpus[0], [&] {
      transport.account(pf.gpus[0], pf.gpus[1], 7e6);  // before the window: not counted
      sg4::CommPtr put = transport.isend(pf.gpus[0], pf.gpus[1], "late", 1e9, false);
      sg4::this_actor::sleep_for(0.015);  // the flow started at 5 ms
      meter.open_window();
      transport.account(pf.gpus[0], pf.gpus[1], 3e6);
      sg4::this_actor::sleep_for(0.020);
      meter.close_window();
      put->wait();  // a put ends with its sender's actor
    });
    sg4::Actor::create("receiver", pf.gpus[1], [&] {
      sg4::this_actor::sleep_for(0.005);  // the put waits 5 ms for its match
      transport.irecv("late")->wait();
    });
    sg4::Engine::get_instance()->run();
    meter.settle();
    const int nic_tx = meter.catalogue().index.at(pf.node_links[0].nic_up[0]);
    const int pcie_tx = meter.catalogue().index.at(pf.node_links[0].pcie_up[0]);
    const int pcie_rx_other = meter.catalogue().index.at(pf.node_links[0].pcie_down[0]);
    const LinkTotals& nic = meter.totals()[nic_tx];
    return {nic.flow_bytes,
            nic.busy(),
            nic.accounted_bytes,
            meter.totals()[pcie_tx].flow_bytes,
            meter.totals()[pcie_rx_other].flow_bytes,
            meter.window_end() - meter.window_start()};
  });
  ASSERT_EQ(v.size(), 6u);
  EXPECT_NEAR(v[0], 25e9 * 0.020, 1e-6 * 5e8);
  EXPECT_NEAR(v[1], 0.020, 1e-9);
  EXPECT_DOUBLE_EQ(v[2], 3e6);
  EXPECT_NEAR(v[3], v[0], 1e-9 * v[0]);  // the same flow on the next link of its route
  EXPECT_EQ(v[4], 0.0);                  // a link off the route
  EXPECT_NEAR(v[5], 0.020, 1e-12);
}

TEST(LinkMeter, PutsBeforeTheirMatchHaveMovedNothingWhenTheWindowOpens) {
  // The put is posted at 0, matched at 5 ms; the window opens at 2 ms: all 1 GB is inside it.
  const std::vector<double> v = run_in_engine([]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(make_cluster(2, 1), {});
    LinkMeter meter(pf);
    Transport transport(pf, nullptr, &meter);
    sg4::Actor::create("sender", pf.gpus[0], [&] {
      sg4::CommPtr put = transport.isend(pf.gpus[0], pf.gpus[1], "m", 1e9, false);
      sg4::this_actor::sleep_for(0.002);
      meter.open_window();
      put->wait();
    });
    sg4::Actor::create("receiver", pf.gpus[1], [&] {
      sg4::this_actor::sleep_for(0.005);
      transport.irecv("m")->wait();
      meter.close_window();
    });
    sg4::Engine::get_instance()->run();
    meter.settle();
    const LinkTotals& nic = meter.totals()[meter.catalogue().index.at(pf.node_links[0].nic_up[0])];
    return {nic.flow_bytes, nic.busy()};
  });
  ASSERT_EQ(v.size(), 2u);
  EXPECT_NEAR(v[0], 1e9, 1e-9 * 1e9);
  EXPECT_NEAR(v[1], 1e9 / 25e9, 1e-9);
}

// ---------------------------------------------------------------- whole runs

SimulationResult run(const Scenario& s) { return simulate(s, {TraceGpus::none(), false}); }

const LinkClassReport& link_class(const SimulationResult& r, LinkClass c) {
  for (const LinkClassReport& k : r.links.classes)
    if (k.link_class == link_class_name(c)) return k;
  throw std::runtime_error("no class");
}

TEST(LinkUsage, EachNicCarriesTheRingsBytesPerStepAndClassTotalsMatchTheTrafficCounts) {
  const Scenario s = nic_bound();
  const SimulationResult r = run(s);
  double gradient = 0;
  for (const auto& b : plan_of(s).buckets) gradient += b.bytes;
  const double per_nic = 2.0 * 7 / 8 * gradient;  // every ring edge crosses one NIC each way
  const LinkClassReport& nic = link_class(r, LinkClass::kNic);
  EXPECT_EQ(nic.links, 16);
  EXPECT_EQ(nic.used, 16);
  EXPECT_NEAR(nic.bytes, 16 * per_nic, 1e-9 * 16 * per_nic);
  for (int c = 0; c < kLinkClasses; ++c)
    EXPECT_NEAR(r.links.classes[c].bytes, r.bytes_per_link_class[c],
                1e-9 * std::max(1.0, r.bytes_per_link_class[c]))
        << r.links.classes[c].link_class;
  ASSERT_FALSE(r.links.busiest.empty());
  EXPECT_EQ(r.links.steps, 2);
  EXPECT_NEAR(r.links.window, 2 * r.iteration_time, 1e-12);
  for (const LinkReport& l : r.links.busiest) {
    EXPECT_NEAR(l.utilisation, l.bytes / (l.bandwidth * r.iteration_time), 1e-12) << l.name;
    EXPECT_LE(l.busy, r.iteration_time * (1 + 1e-12)) << l.name;
    EXPECT_LE(l.utilisation, 1 + 1e-9) << l.name;
  }
  // The NIC is the slowest link of the route: its busy time is the ring's transfer time.
  const LinkReport& top = r.links.busiest.front();
  EXPECT_EQ(top.link_class, "nic");
  EXPECT_NEAR(top.bytes, per_nic, 1e-9 * per_nic);
  EXPECT_NEAR(top.utilisation * r.iteration_time, per_nic / (25e9 / 8), 1e-9);
}

TEST(LinkUsage, SynchronousParameterServersPutOnEachClassWhatTheTrafficCountsSay) {
  // No warmup: the window is the whole run, as the traffic counts are (a worker's next pushes may
  // start before the last worker ends a step, so a later window would cut them).
  const Scenario s = nic_bound({"sync.strategy=ps", "sync.ps.servers=2", "training.warmup=0"});
  const SimulationResult r = run(s);
  double total = 0;
  for (int c = 0; c < kLinkClasses; ++c) {
    EXPECT_NEAR(r.links.classes[c].bytes, r.bytes_per_link_class[c],
                1e-9 * std::max(1.0, r.bytes_per_link_class[c]))
        << r.links.classes[c].link_class;
    total += r.links.classes[c].bytes;
  }
  EXPECT_GT(total, 0);
}

// Every tensor its own all-reduce over a slow per-message latency: the step waits for calls
// whose links idle, and the label says so instead of naming a 3 %-busy NIC as the bottleneck.
TEST(LinkUsage, ALatencyBoundStepIsNamedForItsCallsNotALink) {
  const Scenario s =
      nic_bound({"cluster.nic.bandwidth=400Gbps", "cluster.nic.latency=2ms", "sync.bucket_cap=0"});
  const SimulationResult r = run(s);
  ASSERT_EQ(r.bottleneck, "communication-bound");
  ASSERT_FALSE(r.links.busiest.empty());
  EXPECT_LT(r.links.busiest.front().utilisation, kLatencyBoundBelow);
  // One GPU per node: its PCIe link and its NIC carry the same bytes, either may be named.
  const std::string& label = r.links.busiest.front().label;
  EXPECT_EQ(
      r.bottleneck_link,
      "per-call latency: the busiest links, " + label + ", only " +
          std::to_string(static_cast<int>(std::lround(100 * r.links.busiest.front().utilisation))) +
          " % busy");
}

TEST(LinkUsage, AnOversubscribedLeafUplinkIsNamedAsTheBottleneck) {
  // Two nodes per leaf, 8:1 oversubscribed: each leaf uplink (6.25 Gbps) carries one ring edge,
  // a quarter of a NIC's 25 Gbps. Without oversubscription the NICs bind.
  const Scenario s =
      nic_bound({"cluster.fabric.nodes_per_leaf=2", "cluster.fabric.oversubscription=8"});
  const SimulationResult r = run(s);
  ASSERT_EQ(r.bottleneck, "communication-bound");
  ASSERT_FALSE(r.links.busiest.empty());
  const LinkReport& top = r.links.busiest.front();
  EXPECT_EQ(top.label, "leaf uplinks");
  EXPECT_EQ(top.link_class, "fabric");
  EXPECT_TRUE(top.group == "leaf up" || top.group == "leaf down") << top.name;
  EXPECT_GT(top.utilisation, 0.5);
  const std::string expected =
      "leaf uplinks " + std::to_string(static_cast<int>(std::lround(100 * top.utilisation))) +
      " % busy";
  EXPECT_EQ(r.bottleneck_link, expected);
  const std::string summary = format_summary(s, model_of(s), r, build_ledger(s));
  EXPECT_NE(summary.find("bottleneck      communication-bound (" + expected + ")"),
            std::string::npos)
      << summary;
  // A leaf uplink carries what one NIC sends, at a quarter of the bandwidth.
  const LinkClassReport& nic = link_class(r, LinkClass::kNic);
  EXPECT_NEAR(top.utilisation, 4 * nic.utilisation_max, 1e-9);

  // Without overlap the whole all-reduce is exposed: communication-bound, by the NICs.
  const SimulationResult flat =
      run(nic_bound({"cluster.fabric.nodes_per_leaf=2", "sync.overlap=false"}));
  ASSERT_EQ(flat.bottleneck, "communication-bound");
  EXPECT_EQ(flat.links.busiest.front().label, "NICs");
  EXPECT_EQ(flat.bottleneck_link.rfind("NICs ", 0), 0u) << flat.bottleneck_link;
}

// ImageNet-like samples from a shared store of 100 MB/s that eight GPUs split: the loader, not
// compute (about 0.1 s per step) or the ring, sets the pace. The store is a SimGrid disk, not a
// network link; its reads are metered on the store's link all the same, so the run names it
// among its busiest links, busy nearly all the step, with the bytes the step consumed.
TEST(LinkUsage, AStoreBoundRunNamesTheSharedStoreWithTheBytesItServed) {
  const Scenario s =
      nic_bound({"data.synthetic=false", "data.sample_bytes=110KB", "data.decoded_bytes=150528B",
                 "data.storage.kind=shared", "data.storage.bandwidth=100MB/s",
                 "data.decode.samples_per_core=100000", "training.iterations=4"});
  const SimulationResult r = run(s);
  ASSERT_EQ(r.bottleneck, "data-loading-bound");
  ASSERT_FALSE(r.links.busiest.empty());
  const LinkReport& top = r.links.busiest.front();
  EXPECT_EQ(top.name, "storage tx");
  EXPECT_EQ(top.link_class, "storage");
  EXPECT_EQ(top.label, "shared storage links");
  // Bound by the store: it serves one step's samples (8 GPUs x 32 x 110 kB) per step, nearly
  // without a pause.
  const double per_step = 8 * 32 * 110e3;
  EXPECT_NEAR(top.bytes, per_step, 0.02 * per_step);
  EXPECT_NEAR(top.bandwidth, 100e6, 1e-6);
  EXPECT_GT(top.utilisation, 0.95);
  EXPECT_LE(top.utilisation, 1 + 1e-9);
  EXPECT_NEAR(top.utilisation, top.bytes / (top.bandwidth * r.iteration_time), 1e-9);
  const LinkClassReport& storage = link_class(r, LinkClass::kStorage);
  EXPECT_EQ(storage.used, 1);
  EXPECT_EQ(storage.busiest, "storage tx");
  bool in_fabric = false;
  for (const LinkReport& f : r.links.fabric)
    if (f.name == "storage tx") in_fabric = f.utilisation == top.utilisation;
  EXPECT_TRUE(in_fabric);  // the report's bars of links outside the nodes show it
  // In the trace, the loader's reads name the store as their link; the all-reduces, which the
  // store's traffic never crosses, name a link of their own route.
  SimOptions traced;
  traced.baseline = false;
  const SimulationResult t = simulate(s, traced);
  int comm = 0, reads = 0;
  for (const TraceEvent& e : t.trace) {
    const auto link = e.texts.find("link");
    if (link == e.texts.end()) continue;
    if (e.lane == "comm") {
      ++comm;
      EXPECT_NE(link->second, "storage tx") << e.name;
    }
    if (e.lane == "data" && e.name.rfind("read", 0) == 0 && link->second == "storage tx") ++reads;
  }
  EXPECT_GT(comm, 0);
  EXPECT_GT(reads, 0);
  const std::string summary = format_summary(s, model_of(s), r, build_ledger(s));
  EXPECT_NE(
      summary.find("busiest links   storage tx " + fmt::format("{:.1f} %", 100 * top.utilisation)),
      std::string::npos)
      << summary;
}

TEST(LinkUsage, AComputeBoundRunNamesNoBindingLink) {
  const SimulationResult r = run(nic_bound({"cluster.nic.bandwidth=1000Gbps"}));
  EXPECT_EQ(r.bottleneck, "compute-bound");
  EXPECT_EQ(r.bottleneck_link, "");
  EXPECT_FALSE(r.links.busiest.empty());  // still measured
}

// The bundled GB200 NVL72 scenario (two racks, 72 GPUs per NVLink domain) loads, fits and
// simulates; inside one rack the all-reduce rides NVLink only: no byte reaches a NIC, the
// fabric or PCIe.
TEST(LinkUsage, Gb200Nvl72RackAllReducesOverNvLinkOnly) {
  const std::string file = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/gb200-nvl72.yaml";
  const Scenario two_racks = load_scenario(file, {"training.iterations=2"});
  ASSERT_EQ(two_racks.cluster.total_gpus(), 144);
  const SimulationResult both = run(two_racks);
  EXPECT_NE(both.bottleneck, "memory-infeasible");
  EXPECT_GT(both.iteration_time, 0);
  EXPECT_GT(link_class(both, LinkClass::kNic).bytes, 0);  // the ring crosses racks

  const SimulationResult rack =
      run(load_scenario(file, {"cluster.nodes=1", "training.iterations=2"}));
  EXPECT_NE(rack.bottleneck, "memory-infeasible");
  EXPECT_GT(link_class(rack, LinkClass::kIntraNode).bytes, 0);
  EXPECT_EQ(link_class(rack, LinkClass::kIntraNode).used, 2 * 72);  // each GPU's port up, down
  EXPECT_EQ(link_class(rack, LinkClass::kNic).bytes, 0);
  EXPECT_EQ(link_class(rack, LinkClass::kFabric).bytes, 0);
  EXPECT_EQ(link_class(rack, LinkClass::kPcie).bytes, 0);
  // Ring all-reduce: each GPU sends 2 (p-1)/p of the gradient per step, out of its NVLink port
  // into the switch and out of the switch into its neighbour's port: two links per byte.
  double gradient = 0;
  for (const auto& b : plan_of(load_scenario(file, {"cluster.nodes=1"})).buckets)
    gradient += b.bytes;
  const LinkClassReport& nvlink = link_class(rack, LinkClass::kIntraNode);
  EXPECT_NEAR(nvlink.bytes, 2 * 72 * (2.0 * 71 / 72) * gradient, 1e-6 * nvlink.bytes);
}

}  // namespace
}  // namespace ddpsim
