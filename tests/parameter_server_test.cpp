// Parameter servers on the SimGrid platform: the push/pull closed forms (dedicated, colocated,
// BytePS's optimum) on uncontended links to 1e-6, BytePS-style sharding, byte volumes, and that
// more dedicated servers never slow a step. The component runs inside the real worker loop with a
// hand-made iteration plan (one bucket of S bytes, no compute), so a step is exactly
//   [intra-node reduce-scatter] + alpha + push + server update + pull + alpha [+ all-gather].
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "sim/cost/collective_formulas.h"
#include "sim/engine/ps_sync.h"
#include "sim/engine/simulation.h"
#include "sim/engine/sync_factory.h"
#include "sim/engine/worker.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/util/input_error.h"
#include "tests/sim_harness.h"

namespace ddpsim {
namespace {

namespace sg4 = simgrid::s4u;
using testing::make_cluster;
using testing::run_in_engine;

constexpr double kS = 268435456.0;  // 256 MiB = 2^28: divides evenly into every shard below
constexpr double kAlphaNic = 3e-6, kAlphaIntra = 1e-6;

struct PsJob {
  ClusterSpec cluster;
  int servers = 1;
  PsPlacement placement = PsPlacement::kDedicated;
  double server_bandwidth = 0;  // 0 = cluster NIC
  int byteps_cpu_servers = -1;  // >= 0: BytePS layout with this many CPU machines
  double chunk = 1048576;
  std::vector<double> buckets{kS};  // one tensor per bucket
  int steps = 1;
};

struct PsOutcome {
  double step = 0;  // latest worker's end of the last step / steps
  double sent = 0, received = 0;
  std::array<double, kLinkClasses> per_class{};
};

Scenario scenario_of(const PsJob& job) {
  Scenario s;
  s.cluster = job.cluster;
  s.training.iterations = job.steps;
  s.training.warmup = 0;
  s.training.optimizer = Optimizer::kMomentum;  // 4 FLOP per parameter on the server
  s.sync.strategy = SyncStrategy::kParameterServer;
  s.sync.ps.servers = job.byteps_cpu_servers >= 0 ? job.byteps_cpu_servers : job.servers;
  s.sync.ps.placement = job.placement;
  s.sync.ps.server_nic_bandwidth = job.server_bandwidth;
  s.sync.ps.chunk_bytes = job.chunk;
  return s;
}

IterationPlan plan_of(const PsJob& job) {
  IterationPlan plan;
  for (size_t b = 0; b < job.buckets.size(); ++b) {
    Bucket bucket;
    bucket.tensors.push_back({static_cast<int>(b), 0, job.buckets[b]});
    bucket.bytes = job.buckets[b];
    plan.buckets.push_back(bucket);
    plan.gradient_bytes += bucket.bytes;
  }
  plan.backward_segments.assign(job.buckets.size() + 1, 0.0);
  return plan;
}

PsOutcome run_ps(const PsJob& job) {
  const Scenario s = scenario_of(job);
  const IterationPlan plan = plan_of(job);
  std::vector<double> v = run_in_engine([&]() -> std::vector<double> {
    PlatformExtras extras = platform_extras(s);
    if (job.byteps_cpu_servers >= 0) extras.dedicated_servers = job.byteps_cpu_servers;
    ClusterPlatform pf = build_cluster_platform(s.cluster, extras);
    RunContext ctx;
    ctx.scenario = &s;
    ctx.plan = &plan;
    ctx.platform = &pf;
    ctx.transport = std::make_unique<Transport>(pf, &ctx.traffic);
    ctx.workers.resize(s.cluster.total_gpus());
    ctx.feed = std::make_unique<SyntheticFeed>();
    ctx.sync =
        make_ps_sync(&ctx, job.byteps_cpu_servers >= 0 ? byteps_layout(pf, job.byteps_cpu_servers)
                                                       : ps_layout(s, pf));
    for (int r = 0; r < s.cluster.total_gpus(); ++r)
      sg4::Actor::create("worker" + std::to_string(r), pf.gpus[r],
                         [&ctx, r] { run_worker(&ctx, r); });
    sg4::Engine::get_instance()->run();
    double end = 0, sent = 0, received = 0;
    for (const WorkerStats& w : ctx.workers) end = std::max(end, w.step_end.back());
    for (const auto& [h, b] : ctx.traffic.sent) sent += b;
    for (const auto& [h, b] : ctx.traffic.received) received += b;
    std::vector<double> out = {end / job.steps, sent, received};
    out.insert(out.end(), ctx.traffic.bytes_per_class.begin(), ctx.traffic.bytes_per_class.end());
    return out;
  });
  PsOutcome o;
  if (v.size() != 3 + kLinkClasses) return o;
  o.step = v[0];
  o.sent = v[1];
  o.received = v[2];
  std::copy(v.begin() + 3, v.end(), o.per_class.begin());
  return o;
}

// Server update of `bytes` of fp32 gradients with momentum SGD (4 FLOP per parameter).
double update_time(double bytes) { return bytes / 4 * 4 / kServerUpdateFlopsPerSecond; }

void expect_relative(double got, double want, double tolerance = 1e-6) {
  EXPECT_NEAR(got, want, tolerance * want) << "relative error " << (got - want) / want;
}

TEST(ParameterServerClosedForm, DedicatedPushIsMaxOfWorkerNicAndServerDownlinks) {
  for (int n : {4, 8}) {
    for (int k : {1, 2, 4, 8}) {
      for (double server_bw : {25e9, 100e9, 6.25e9}) {
        SCOPED_TRACE(std::to_string(n) + " workers, " + std::to_string(k) + " servers of " +
                     std::to_string(server_bw));
        PsJob job{make_cluster(n, 1)};
        job.servers = k;
        job.server_bandwidth = server_bw;
        const double push = ps_push_time(n, k, kS, 25e9, server_bw);
        expect_relative(run_ps(job).step, 2 * push + update_time(kS / k) + 2 * kAlphaNic);
      }
    }
  }
}

TEST(ParameterServerClosedForm, NodeReducesInsideBeforeItsNicsPushTheBucketOnce) {
  // 4 nodes x 4 GPUs, one NIC: ring reduce-scatter in the node (3/4 S at 200 GB/s), each GPU
  // pushes S/(4k) to each server, so the NIC carries S and a server n S / k; then pull and
  // all-gather.
  for (int k : {1, 2, 8}) {
    SCOPED_TRACE(k);
    PsJob job{make_cluster(4, 4, 1)};
    job.servers = k;
    const double intra = 0.75 * kS / 200e9 + 3 * kAlphaIntra;
    const double push = ps_push_time(4, k, kS, 25e9, 25e9);
    expect_relative(run_ps(job).step, 2 * intra + 2 * push + update_time(kS / k) + 2 * kAlphaNic);
  }
}

TEST(ParameterServerClosedForm, ColocatedServersAreBoundByTheirNodesDownlink) {
  for (int n : {4, 8}) {
    for (int k = 1; k <= n; k *= 2) {
      SCOPED_TRACE(std::to_string(n) + " nodes, " + std::to_string(k) + " colocated servers");
      PsJob job{make_cluster(n, 1)};
      // A GPU's PCIe uplink carries its k shards, the local one included: at 32 GB/s, 4 shards
      // would get 8 GB/s each, less than the 25/3 GB/s of the NIC (the formula's condition
      // B_pcie >= k B / (n-1)); a PCIe Gen5 link lifts it.
      job.cluster.pcie_bandwidth = 64e9;
      job.servers = k;
      job.placement = PsPlacement::kColocated;
      expect_relative(run_ps(job).step, 2 * colocated_ps_push_time(n, k, kS, 25e9) +
                                            update_time(kS / k) + 2 * kAlphaNic);
    }
  }
}

TEST(ParameterServerClosedForm, ColocatedOnEveryNodeEqualsTheRingBandwidthTerm) {
  PsJob job{make_cluster(8, 1)};
  job.servers = 8;
  job.placement = PsPlacement::kColocated;
  expect_relative(run_ps(job).step, 2.0 * 7 / 8 * kS / 25e9 + update_time(kS / 8) + 2 * kAlphaNic);
}

TEST(ParameterServerClosedForm, BytepsSharesMakeEachPhaseTakeTheOptimum) {
  // One CPU machine beside n GPU machines, BytePS's shares (1/6 and 1/3 for n = 4; 1/10 and 1/5
  // for n = 8): the CPU server's downlink carries n x S during the push and its uplink the same
  // during the pull, 2n(n-1)S/((n^2+kn-2k)B) each; every other link is less loaded and each
  // worker's link holds as many connections as the CPU server's, so max-min gives every CPU flow
  // B/n throughout. (With k > 1 CPU machines a worker's link holds more connections than a CPU
  // server's and per-connection fairness keeps the phases above the optimum.) Steps run push
  // then pull; BytePS overlaps them across tensors, which buckets approach.
  for (int n : {4, 8}) {
    SCOPED_TRACE(n);
    // 96 or 160 chunks, so the shares come out in whole chunks.
    const double bytes = n == 4 ? 6 * 67108864.0 : 10 * 33554432.0;
    PsJob job{make_cluster(n, 1)};
    job.byteps_cpu_servers = 1;
    job.buckets = {bytes};
    job.chunk = n == 4 ? 4194304.0 : 2097152.0;
    const BytepsShares shares = byteps_shares(n, 1);
    const double optimum = byteps_optimum_time(n, 1, bytes, 25e9);
    expect_relative(run_ps(job).step,
                    2 * optimum + update_time(shares.cpu * bytes) + 2 * kAlphaNic);
  }
}

TEST(ParameterServerBytes, PushAndPullMoveTheBucketOncePerNodeEachWay) {
  struct Case {
    ClusterSpec cluster;
    PsPlacement placement;
    int servers;
  };
  for (const Case& c : {Case{make_cluster(4, 1), PsPlacement::kDedicated, 3},
                        Case{make_cluster(4, 4, 2), PsPlacement::kDedicated, 2},
                        Case{make_cluster(4, 4, 1), PsPlacement::kColocated, 3}}) {
    PsJob job{c.cluster};
    job.servers = c.servers;
    job.placement = c.placement;
    job.buckets = {kS, kS / 2, 3 * 1048576.0};
    job.steps = 2;
    const double total = kS + kS / 2 + 3 * 1048576.0;
    const int n = c.cluster.nodes, g = c.cluster.gpus_per_node;
    PsOutcome o = run_ps(job);
    // Per step: n x total pushed, n x total pulled, and the ring reduce-scatter + all-gather of
    // every bucket inside each node.
    const double want = 2 * (2 * n * total + n * g * 2.0 * (g - 1) / g * total);
    expect_relative(o.sent, want, 1e-12);
    expect_relative(o.received, want, 1e-12);
  }
}

TEST(ParameterServerBytes, ColocatedLocalTrafficStaysOffTheNics) {
  // 4 single-GPU nodes, 4 colocated servers: of each worker's S, S/4 goes to its own node's CPU
  // over PCIe only. NIC links crossed: 2 per remote message, 3 of 4 shards remote, both ways.
  PsJob job{make_cluster(4, 1)};
  job.servers = 4;
  job.placement = PsPlacement::kColocated;
  PsOutcome o = run_ps(job);
  expect_relative(o.per_class[static_cast<int>(LinkClass::kNic)], 2 * 2 * 4 * 0.75 * kS, 1e-12);
}

TEST(ParameterServerSharding, ChunksBalanceServersToWithinOneChunkAndFollowShares) {
  Bucket a, b;
  a.tensors = {{0, 0, 10e6}, {1, 0, 3e6}};
  b.tensors = {{2, 0, 7.5e6}};
  const auto equal = partition_buckets({a, b}, 4e6, {1, 1, 1});
  std::vector<double> per_server(3, 0);
  for (const auto& row : equal)
    for (size_t s = 0; s < 3; ++s) per_server[s] += row[s];
  // Chunks: 4, 4, 2 | 3 | 4, 3.5 (MB) -> greedy least-loaded: 4 | 4 | 2+3 ... totals 20.5 MB.
  EXPECT_DOUBLE_EQ(per_server[0] + per_server[1] + per_server[2], 20.5e6);
  EXPECT_LE(*std::max_element(per_server.begin(), per_server.end()) -
                *std::min_element(per_server.begin(), per_server.end()),
            4e6);
  EXPECT_DOUBLE_EQ(equal[0][0] + equal[0][1] + equal[0][2], 13e6);
  // Shares 1 : 2 over 3 MB in 1 MB chunks: exactly 1 and 2 MB.
  Bucket c;
  c.tensors = {{0, 0, 3e6}};
  const auto weighted = partition_buckets({c}, 1e6, {1, 2});
  EXPECT_DOUBLE_EQ(weighted[0][0], 1e6);
  EXPECT_DOUBLE_EQ(weighted[0][1], 2e6);
}

// ---------------------------------------------------------------- whole scenarios

const char* kCluster = R"(
name: ps
cluster:
  nodes: 8
  gpus_per_node: 1
  gpu: v100-sxm2-16gb
  intra_node: {kind: nvswitch, bandwidth: 150GB/s, latency: 1us}
  pcie: 16GB/s
  nic: {count: 1, bandwidth: 10Gbps, latency: 5us}
  fabric: {kind: leaf-spine, nodes_per_leaf: 16, oversubscription: 1}
model: {name: resnet50}
training: {batch_per_gpu: 32, iterations: 3, warmup: 1}
sync: {strategy: ps, ps: {servers: 1, placement: dedicated}}
)";

TEST(ParameterServerScenario, MoreDedicatedServersNeverSlowAStep) {
  double previous = 1e30;
  for (int k : {1, 2, 3, 4, 6, 8, 16}) {
    const SimulationResult r =
        simulate(parse_scenario_text(kCluster, "ps.yaml", {"sync.ps.servers=" + std::to_string(k)}),
                 {0, false});
    EXPECT_LE(r.iteration_time, previous * (1 + 1e-9)) << k << " servers";
    previous = r.iteration_time;
  }
}

TEST(ParameterServerScenario, WorkersRunNoOptimizerAndTheStepWaitsForThePull) {
  const SimulationResult r =
      simulate(parse_scenario_text(kCluster, "ps.yaml", {"sync.ps.servers=4"}), {0, false});
  EXPECT_EQ(r.breakdown.optimizer, 0);
  EXPECT_GT(r.breakdown.exposed_comm, 0);
  EXPECT_NEAR(r.breakdown.total(), r.iteration_time, 1e-9 * r.iteration_time);
  EXPECT_EQ(r.staleness_max, 0);
  ASSERT_FALSE(r.buckets.empty());
  EXPECT_EQ(r.buckets[0].algorithm, "ps (4 servers, sync)");
}

TEST(ParameterServerScenario, BytepsPlacementSpansColocatedAndDedicatedExactly) {
  auto step = [](std::vector<std::string> set) {
    return simulate(parse_scenario_text(kCluster, "ps.yaml", set), {0, false}).iteration_time;
  };
  // No CPU machine: one colocated server on each of the 8 nodes, 1/8 of the parameters each.
  EXPECT_EQ(step({"sync.ps.placement=byteps", "sync.ps.servers=0"}),
            step({"sync.ps.placement=colocated", "sync.ps.servers=8"}));
  // As many CPU machines as nodes: they hold everything, the colocated servers nothing.
  EXPECT_EQ(step({"sync.ps.placement=byteps", "sync.ps.servers=8"}),
            step({"sync.ps.placement=dedicated", "sync.ps.servers=8"}));
  const SimulationResult r = simulate(
      parse_scenario_text(kCluster, "ps.yaml", {"sync.ps.placement=byteps", "sync.ps.servers=2"}),
      {0, false});
  // n = 8, k = 2: n^2 + kn - 2k = 76, colocated (n-k)/76, CPU 2(n-1)/76.
  EXPECT_NE(r.notes.find("byteps: 8 colocated servers + 2 CPU servers holding 7.89 % and 18.4 %"),
            std::string::npos)
      << r.notes;
  EXPECT_NEAR(r.bytes_sent, r.bytes_received, 1e-9 * r.bytes_sent);
}

TEST(ParameterServerScenario, BytepsCountsOnlyCpuServersAndTheyMayBeNone) {
  EXPECT_THROW(parse_scenario_text(kCluster, "ps.yaml", {"sync.ps.servers=0"}), InputError);
  EXPECT_EQ(
      parse_scenario_text(kCluster, "ps.yaml", {"sync.ps.placement=byteps", "sync.ps.servers=0"})
          .sync.ps.servers,
      0);
}

}  // namespace
}  // namespace ddpsim
