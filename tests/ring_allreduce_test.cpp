// Ring all-reduce on the SimGrid platform against its closed form 2(p-1)/p * S/B + 2(p-1)*alpha,
// chunked against flow mode, byte conservation, and the behaviour of a call as a whole (start
// barrier, serialisation of back-to-back calls).
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/collective_sync.h"
#include "sim/collectives/traffic.h"
#include "sim/platform/cluster_platform.h"
#include "tests/sim_harness.h"

namespace ddpsim {
namespace {

namespace sg4 = simgrid::s4u;
using testing::make_cluster;
using testing::run_in_engine;

constexpr double kS = 268435456.0;  // 256 MiB: every chunk S/(p*C) below is a whole byte count

struct RingJob {
  explicit RingJob(const ClusterSpec& s, CollectiveMode m = CollectiveMode::kFlow)
      : spec(s), mode(m) {}
  ClusterSpec spec;
  CollectiveMode mode;
  int channels = 0;
  std::vector<double> sizes{kS};            // one call per entry, tags 1, 2, ...
  std::vector<std::vector<double>> pauses;  // pauses[call][rank]: sleep before that call
};

struct RingOutcome {
  std::vector<double> last_finish;   // per call: latest rank to return
  std::vector<double> first_finish;  // per call: earliest rank to return
  double sent = 0, received = 0, messages = 0;
  std::array<double, kLinkClasses> per_class{};
};

RingOutcome run_ring(const RingJob& job) {
  const size_t calls = job.sizes.size();
  std::vector<double> v = run_in_engine([&]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(job.spec, {});
    TrafficCounters counters;
    Transport transport(pf, &counters);
    auto ring = make_ring_allreduce(&transport, job.mode, job.channels);
    const int p = static_cast<int>(pf.gpus.size());
    std::vector<double> last(calls, 0), first(calls, 1e300);
    for (int r = 0; r < p; ++r) {
      sg4::Actor::create("rank" + std::to_string(r), pf.gpus[r], [&, r] {
        for (size_t i = 0; i < calls; ++i) {
          if (i < job.pauses.size() && job.pauses[i][r] > 0)
            sg4::this_actor::sleep_for(job.pauses[i][r]);
          ring->run(r, i + 1, job.sizes[i]);
          last[i] = std::max(last[i], sg4::Engine::get_clock());
          first[i] = std::min(first[i], sg4::Engine::get_clock());
        }
      });
    }
    sg4::Engine::get_instance()->run();
    std::vector<double> out = last;
    out.insert(out.end(), first.begin(), first.end());
    double sent = 0, received = 0;
    for (const auto& [h, b] : counters.sent) sent += b;
    for (const auto& [h, b] : counters.received) received += b;
    out.insert(out.end(), {sent, received, counters.messages});
    out.insert(out.end(), counters.bytes_per_class.begin(), counters.bytes_per_class.end());
    return out;
  });
  RingOutcome o;
  if (v.size() != 2 * calls + 3 + kLinkClasses) return o;
  o.last_finish.assign(v.begin(), v.begin() + calls);
  o.first_finish.assign(v.begin() + calls, v.begin() + 2 * calls);
  o.sent = v[2 * calls];
  o.received = v[2 * calls + 1];
  o.messages = v[2 * calls + 2];
  std::copy(v.begin() + 2 * calls + 3, v.end(), o.per_class.begin());
  return o;
}

double ring_volume(int p, double bytes) { return 2.0 * (p - 1) / p * bytes; }

// 2(p-1)/p * S/B + 2(p-1)*alpha.
double closed_form(int p, double bytes, double bandwidth, double alpha) {
  return ring_volume(p, bytes) / bandwidth + 2.0 * (p - 1) * alpha;
}

// Derivation for g GPUs and C rings per node (C <= g) on several nodes: ring c leaves every node
// from GPU c*g/C, so the C exit GPUs are distinct. An inter-node edge carries one ring (V/C) over
// PCIe and a NIC; an intra-node edge l -> l+1 carries every ring not leaving at l: C rings when
// some GPU is no exit (C < g), else C - 1. Flows on different edges share no link, so
// T = max(rings_intra * V/C / B_intra, V/C / min(B_nic, B_pcie)) + 2(p-1)*max(alpha).
// With C = g = 8 this is V / min(8/7*B_intra, 8*B_nic); with C < g it is V / min(B_intra, C*B_nic).
double multi_node_ring_time(const ClusterSpec& c, double bytes) {
  const int p = c.total_gpus();
  const int g = c.gpus_per_node;
  const int rings = std::min(c.nic.count, g);
  const double v = ring_volume(p, bytes);
  const int intra_rings = g == 1 ? 0 : (rings < g ? rings : rings - 1);
  const double t_intra = intra_rings * v / rings / c.intra_node.bandwidth;
  const double t_inter = v / rings / std::min(c.nic.bandwidth, c.pcie_bandwidth);
  const double alpha = std::max(c.nic.latency, g > 1 ? c.intra_node.latency : 0.0);
  return std::max(t_intra, t_inter) + 2.0 * (p - 1) * alpha;
}

void expect_relative(double got, double want, double tolerance = 1e-6) {
  EXPECT_NEAR(got, want, tolerance * want) << "relative error " << (got - want) / want;
}

TEST(RingAllReduceClosedForm, NvSwitchOnlyNode) {
  for (int p : {2, 8, 64, 512}) {
    SCOPED_TRACE(p);
    RingJob job{make_cluster(1, p)};
    RingOutcome o = run_ring(job);
    ASSERT_EQ(o.last_finish.size(), 1u);
    const double want = closed_form(p, kS, 200e9, 1e-6);
    expect_relative(o.last_finish[0], want);
    expect_relative(o.first_finish[0], want);
  }
}

TEST(RingAllReduceClosedForm, NicBoundOneGpuPerNode) {
  for (int p : {2, 8, 64, 512}) {
    SCOPED_TRACE(p);
    RingJob job{make_cluster(p, 1, 1)};  // NIC 25 GB/s < PCIe 32 GB/s, 16 nodes per leaf
    RingOutcome o = run_ring(job);
    ASSERT_EQ(o.last_finish.size(), 1u);
    expect_relative(o.last_finish[0], closed_form(p, kS, 25e9, 3e-6));
  }
}

TEST(RingAllReduceClosedForm, EightGpuNodesWithEightNicsAreBoundByTheSlowerPath) {
  for (int p : {8, 64, 512}) {
    SCOPED_TRACE(p);
    ClusterSpec nic_bound = make_cluster(p / 8, 8, 8);  // 8*25 GB/s < 8/7*200 GB/s
    RingOutcome o = run_ring(RingJob{nic_bound});
    ASSERT_EQ(o.last_finish.size(), 1u);
    if (p == 8) {  // one node: a single ring over NVSwitch
      expect_relative(o.last_finish[0], closed_form(p, kS, 200e9, 1e-6));
      continue;
    }
    expect_relative(o.last_finish[0], closed_form(p, kS, 8 * 25e9, 3e-6));
    expect_relative(o.last_finish[0], multi_node_ring_time(nic_bound, kS));

    ClusterSpec intra_bound = nic_bound;  // 8*50 GB/s > 8/7*200 GB/s
    intra_bound.nic.bandwidth = 50e9;
    intra_bound.pcie_bandwidth = 64e9;
    o = run_ring(RingJob{intra_bound});
    ASSERT_EQ(o.last_finish.size(), 1u);
    expect_relative(o.last_finish[0], closed_form(p, kS, 8.0 / 7.0 * 200e9, 3e-6));
  }
}

TEST(RingAllReduceClosedForm, EightGpuNodesWithFourNicsUseFourRings) {
  ClusterSpec spec = make_cluster(8, 8, 4);
  RingOutcome o = run_ring(RingJob{spec});
  ASSERT_EQ(o.last_finish.size(), 1u);
  expect_relative(o.last_finish[0], closed_form(64, kS, std::min(200e9, 4 * 25e9), 3e-6));
  spec.nic.bandwidth = 100e9;
  spec.pcie_bandwidth = 100e9;
  o = run_ring(RingJob{spec});
  ASSERT_EQ(o.last_finish.size(), 1u);
  expect_relative(o.last_finish[0], closed_form(64, kS, std::min(200e9, 4 * 100e9), 3e-6));
}

TEST(RingAllReduceModes, ChunkedAgreesWithFlow) {
  std::vector<ClusterSpec> specs;
  for (int p : {2, 8, 64}) {
    specs.push_back(make_cluster(1, p));
    specs.push_back(make_cluster(p, 1));
  }
  specs.push_back(make_cluster(8, 8, 8));
  specs.push_back(make_cluster(8, 8, 4));
  specs.push_back(make_cluster(2, 4, 1));
  for (const ClusterSpec& spec : specs) {
    SCOPED_TRACE(std::to_string(spec.nodes) + "x" + std::to_string(spec.gpus_per_node) + " nics " +
                 std::to_string(spec.nic.count));
    RingOutcome flow = run_ring(RingJob{spec});
    RingOutcome chunked = run_ring(RingJob{spec, CollectiveMode::kChunked});
    ASSERT_EQ(flow.last_finish.size(), 1u);
    ASSERT_EQ(chunked.last_finish.size(), 1u);
    expect_relative(chunked.last_finish[0], flow.last_finish[0]);
    expect_relative(chunked.sent, flow.sent, 1e-12);
    const int p = spec.total_gpus();
    const int rings = ring_channel_count(spec, 0);
    // 2(p-1) steps, one message per distinct successor per rank and step: every GPU sends to
    // its next GPU (in the node, or in the next node for an exit GPU of a single ring), and with
    // several rings each exit GPU also sends inside its node for the rings passing through.
    const double per_step = p + (spec.nodes > 1 && rings > 1 ? spec.nodes * rings : 0);
    EXPECT_EQ(chunked.messages, 2.0 * (p - 1) * per_step);
  }
}

TEST(RingAllReduceBytes, SentEqualsReceivedEqualsPTimesVolume) {
  for (CollectiveMode mode : {CollectiveMode::kFlow, CollectiveMode::kChunked}) {
    for (const ClusterSpec& spec :
         {make_cluster(1, 8), make_cluster(40, 1), make_cluster(4, 8, 8), make_cluster(4, 8, 2)}) {
      const int p = spec.total_gpus();
      SCOPED_TRACE(p);
      RingOutcome o = run_ring(RingJob{spec, mode});
      const double total = p * ring_volume(p, kS);
      expect_relative(o.sent, total, 1e-12);
      expect_relative(o.received, total, 1e-12);
    }
  }
}

TEST(RingAllReduceBytes, NicBoundRingCrossesEachLeafBoundaryOnce) {
  // 40 nodes, 16 per leaf: 3 leaves; the ring leaves each leaf once (two fabric links per edge).
  RingOutcome o = run_ring(RingJob{make_cluster(40, 1)});
  const double v = ring_volume(40, kS);
  expect_relative(o.per_class[static_cast<int>(LinkClass::kNic)], 2 * 40 * v, 1e-12);
  expect_relative(o.per_class[static_cast<int>(LinkClass::kPcie)], 2 * 40 * v, 1e-12);
  expect_relative(o.per_class[static_cast<int>(LinkClass::kFabric)], 2 * 3 * v, 1e-12);
  EXPECT_EQ(o.per_class[static_cast<int>(LinkClass::kIntraNode)], 0);
  EXPECT_EQ(o.messages, 40);
}

TEST(RingAllReduceBytes, EightRingsSendOneEighthOfTheVolumeThroughEachNic) {
  // 4 nodes x 8 GPUs x 8 NICs: per rank 7/8 V over NVSwitch (two intra links per edge) and 1/8 V
  // over its own NIC (two PCIe and two NIC links per edge).
  RingOutcome o = run_ring(RingJob{make_cluster(4, 8, 8)});
  const double v = ring_volume(32, kS);
  expect_relative(o.per_class[static_cast<int>(LinkClass::kIntraNode)], 2 * 32 * v * 7 / 8, 1e-12);
  expect_relative(o.per_class[static_cast<int>(LinkClass::kNic)], 2 * 32 * v / 8, 1e-12);
  expect_relative(o.per_class[static_cast<int>(LinkClass::kPcie)], 2 * 32 * v / 8, 1e-12);
  EXPECT_EQ(o.messages, 64);
}

TEST(RingAllReduceCall, LateRankDelaysEveryoneByExactlyItsDelay) {
  for (CollectiveMode mode : {CollectiveMode::kFlow, CollectiveMode::kChunked}) {
    for (const ClusterSpec& spec : {make_cluster(1, 8), make_cluster(4, 8, 8)}) {
      const int p = spec.total_gpus();
      const double base = run_ring(RingJob{spec, mode}).last_finish.at(0);
      const double delay = 1.234e-3;
      RingJob late{spec, mode};
      late.pauses = {std::vector<double>(p, 0.0)};
      late.pauses[0][p / 2 + 1] = delay;
      RingOutcome o = run_ring(late);
      ASSERT_EQ(o.last_finish.size(), 1u);
      expect_relative(o.last_finish[0], base + delay);
      expect_relative(o.first_finish[0], base + delay);
    }
  }
}

// The flow-mode ring's end of call: the last rank to join runs the lead (the latency sleep) once,
// and every rank leaves when it returns; calls with different tags run one after another.
TEST(LedCall, TheLastRankLeadsOnceAndEveryoneLeavesWhenTheLeadReturns) {
  const std::vector<double> arrivals{0.0, 1.0, 3.0, 2.0};  // rank 2 joins last
  const double lead = 5.0;
  std::vector<double> v = run_in_engine([&]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(make_cluster(1, 4), {});
    LedCall call(4);
    std::vector<double> leaders, leave(8, -1);
    for (int r = 0; r < 4; ++r)
      sg4::Actor::create("rank" + std::to_string(r), pf.gpus[r], [&, r] {
        for (int round = 0; round < 2; ++round) {
          sg4::this_actor::sleep_for(arrivals[r]);
          call.join(7 + round, [&] {
            leaders.push_back(r);
            sg4::this_actor::sleep_for(lead);
          });
          leave[round * 4 + r] = sg4::Engine::get_clock();
        }
      });
    sg4::Engine::get_instance()->run();
    leave.insert(leave.end(), leaders.begin(), leaders.end());
    return leave;
  });
  ASSERT_EQ(v.size(), 10u);
  for (int r = 0; r < 4; ++r) {
    EXPECT_DOUBLE_EQ(v[r], 3.0 + lead) << "rank " << r;
    EXPECT_DOUBLE_EQ(v[4 + r], 2 * (3.0 + lead)) << "rank " << r;
  }
  EXPECT_EQ(v[8], 2.0);  // one lead per call, by the rank that joined last
  EXPECT_EQ(v[9], 2.0);
}

TEST(RingAllReduceCall, BackToBackCallsRunOneAfterAnotherPerRank) {
  const ClusterSpec spec = make_cluster(4, 8, 8);
  const std::vector<double> sizes = {kS, kS / 4, 4 * kS};
  std::vector<double> alone;
  for (double s : sizes) {
    RingJob one{spec};
    one.sizes = {s};
    alone.push_back(run_ring(one).last_finish.at(0));
  }
  RingJob job{spec};
  job.sizes = sizes;
  // Rank 9 computes 0.5 ms between the first and second call; the others wait for it there.
  job.pauses = {std::vector<double>(32, 0.0), std::vector<double>(32, 0.0),
                std::vector<double>(32, 0.0)};
  job.pauses[1][9] = 0.5e-3;
  RingOutcome o = run_ring(job);
  ASSERT_EQ(o.last_finish.size(), 3u);
  expect_relative(o.last_finish[0], alone[0]);
  expect_relative(o.last_finish[1], alone[0] + 0.5e-3 + alone[1]);
  expect_relative(o.last_finish[2], alone[0] + 0.5e-3 + alone[1] + alone[2]);
  expect_relative(o.sent, 32 * ring_volume(32, kS + kS / 4 + 4 * kS), 1e-12);
}

TEST(RingAllReduceCall, DoublingNicBandwidthNeverSlows) {
  for (const ClusterSpec& base : {make_cluster(16, 1), make_cluster(4, 8, 8), make_cluster(4, 8, 1),
                                  make_cluster(40, 4, 2)}) {
    SCOPED_TRACE(base.total_gpus());
    ClusterSpec fast = base;
    fast.nic.bandwidth *= 2;
    const double t = run_ring(RingJob{base}).last_finish.at(0);
    const double t_fast = run_ring(RingJob{fast}).last_finish.at(0);
    EXPECT_LE(t_fast, t);
    expect_relative(t_fast, multi_node_ring_time(fast, kS));
  }
}

TEST(RingAllReduceCall, SingleGpuTakesNoTimeAndMovesNoBytes) {
  for (CollectiveMode mode : {CollectiveMode::kFlow, CollectiveMode::kChunked}) {
    RingOutcome o = run_ring(RingJob{make_cluster(1, 1), mode});
    ASSERT_EQ(o.last_finish.size(), 1u);
    EXPECT_EQ(o.last_finish[0], 0);
    EXPECT_EQ(o.sent, 0);
    EXPECT_EQ(o.messages, 0);
  }
}

TEST(RingAllReduceCall, ChannelsDefaultToNicCountOnSeveralNodesAndOneOnOneNode) {
  EXPECT_EQ(ring_channel_count(make_cluster(4, 8, 8), 0), 8);
  EXPECT_EQ(ring_channel_count(make_cluster(4, 8, 2), 0), 2);
  EXPECT_EQ(ring_channel_count(make_cluster(1, 8, 8), 0), 1);
  EXPECT_EQ(ring_channel_count(make_cluster(4, 2, 8), 0), 2);  // at most one ring per GPU
  EXPECT_EQ(ring_channel_count(make_cluster(4, 8, 8), 3), 3);
}

double cpu_seconds() { return static_cast<double>(std::clock()) / CLOCKS_PER_SEC; }

// Timing probe for the sizes the benchmark targets (prints CPU seconds of the simulating process,
// which stay meaningful on a loaded machine); also checks the result against the derivation.
TEST(RingAllReduceScale, HundredMegabytesAtThousandAndEightThousandGpus) {
  for (int nodes : {128, 1024}) {
    const double bytes = 100e6;
    const ClusterSpec spec = make_cluster(nodes, 8, 8);
    const auto wall0 = std::chrono::steady_clock::now();
    std::vector<double> r = run_in_engine([&]() -> std::vector<double> {
      const double t0 = cpu_seconds();
      ClusterPlatform pf = build_cluster_platform(spec, {});
      const double t1 = cpu_seconds();
      Transport transport(pf, nullptr);
      auto ring = make_ring_allreduce(&transport, CollectiveMode::kFlow, 0);
      double finish = 0;
      for (int rank = 0; rank < spec.total_gpus(); ++rank)
        sg4::Actor::create("rank", pf.gpus[rank], [&, rank] {
          ring->run(rank, 1, bytes);
          finish = std::max(finish, sg4::Engine::get_clock());
        });
      sg4::Engine::get_instance()->run();
      return {finish, t1 - t0, cpu_seconds() - t1};
    });
    const double wall =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
    ASSERT_EQ(r.size(), 3u);
    expect_relative(r[0], multi_node_ring_time(spec, bytes));
    std::printf(
        "ring all-reduce 100 MB, %d GPUs, flow mode: platform %.2f s CPU, simulation %.2f s CPU, "
        "%.2f s wall in all\n",
        nodes * 8, r[1], r[2], wall);
  }
}

}  // namespace
}  // namespace ddpsim
