// Properties every prediction must have, over 100 seeded random scenarios (50 parameter-server, 50
// all-reduce: small clusters, small MLPs, every scheduling option drawn at random), each simulated
// a few times through simulate():
//   - a compute jitter of sigma = 0.001 moves throughput by less than 1 %;
//   - one more parameter server never slows a step by more than 0.5 % plus one partition's time
//     on the tighter link, plus the waits behind partitions already on the wire under priority
//     or forward-order pulls (the derivations are at the check);
//   - doubling every bandwidth never slows a step;
//   - with one GPU 1.5x slower, the label is never communication-bound when 10x the bandwidth
//     gains less than 1 % (waiting for the slow GPU is straggler_wait, not communication).
// Each failure names the seed and the scenario's overrides, so it can be rerun with
// `ddpsim simulate` and --set.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"

namespace ddpsim {
namespace {

const char* kBase = R"(
name: property
cluster:
  nodes: 2
  gpus_per_node: 1
  gpu: v100-sxm2-16gb
  intra_node: {kind: nvswitch, bandwidth: 100GB/s, latency: 1us}
  pcie: 16GB/s
  nic: {count: 1, bandwidth: 10Gbps, latency: 5us}
model: {name: mlp, layers: [1024, 1024]}
training: {batch_per_gpu: 32, iterations: 3, warmup: 1}
compute: {mode: roofline, efficiency: 0.5}
)";

struct Draw {
  std::vector<std::string> set;  // the scenario, as --set overrides of kBase
  bool ps = false;
  int nodes = 2, servers = 1;
  bool colocated = false;
  double nic = 0, intra = 0, pcie = 0, server = 0;  // bytes/s
  double partition = 0;                             // bytes
  bool priority = false, forward_pull = false;      // sync.schedule, sync.ps.pull
};

std::string gbps(double bytes_per_second) {
  return std::to_string(bytes_per_second * 8 / 1e9) + "Gbps";
}

// Scenario `seed`: even seeds parameter servers, odd ones all-reduce.
Draw draw(int seed) {
  std::mt19937_64 rng(static_cast<uint64_t>(seed) * 7919 + 17);
  auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<uint64_t>(n)); };
  Draw d;
  d.ps = seed % 2 == 0;
  d.nodes = 2 + pick(3);
  const int gpus = 1 + pick(2);
  d.nic = (1 + pick(25)) * 1e9 / 8;
  d.intra = (50 + 50 * pick(4)) * 1e9;
  d.pcie = (8 + 8 * pick(3)) * 1e9;
  std::vector<int> widths = {256 << pick(4)};
  for (int l = 0, n = 2 + pick(4); l < n; ++l) widths.push_back(256 << pick(5));
  std::string layers;
  double bytes = 0;  // fp32 gradients
  for (size_t l = 0; l < widths.size(); ++l) {
    layers += (l ? "," : "[") + std::to_string(widths[l]);
    if (l) bytes += 4.0 * (widths[l - 1] + 1.0) * widths[l];
  }
  layers += "]";
  // Partitions of 1/32 or 1/64 of the gradients (4 KiB multiples), as 4 MB are of ResNet-50.
  d.partition = std::max(4096.0, std::round(bytes / (32 << pick(2)) / 4096) * 4096);
  const char* caps[] = {"0", "1MiB", "4MiB", "25MiB"};
  const bool priority = d.priority = pick(3) == 0;
  d.set = {"cluster.nodes=" + std::to_string(d.nodes),
           "cluster.gpus_per_node=" + std::to_string(gpus), "cluster.nic.bandwidth=" + gbps(d.nic),
           "cluster.intra_node.bandwidth=" + std::to_string(d.intra / 1e9) + "GB/s",
           "cluster.pcie=" + std::to_string(d.pcie / 1e9) + "GB/s", "model.layers=" + layers,
           "training.batch_per_gpu=" + std::to_string(8 << pick(4)),
           // From compute-bound to communication-bound: 2 to 200 ms of compute per step.
           "compute.mode=measured", "compute.step_time=" + std::to_string(2 << pick(7)) + "ms",
           std::string("sync.bucket_cap=") + caps[pick(4)],
           std::string("sync.schedule=") + (priority ? "priority" : "fifo"),
           "sync.partition=" + std::to_string(static_cast<long>(d.partition)) + "B"};
  if (d.ps) {
    d.colocated = pick(3) == 0;
    d.servers = 1 + pick(d.colocated ? d.nodes - 1 : 4);
    d.server = d.nic * (1 << pick(3));
    // Keys least-loaded (the default): BytePS's hash and round-robin spread unevenly enough that
    // one more server can be slower (docs/sync-comparison.md).
    d.set.insert(
        d.set.end(),
        {"sync.strategy=ps", "sync.ps.servers=" + std::to_string(d.servers),
         std::string("sync.ps.placement=") + (d.colocated ? "colocated" : "dedicated"),
         "sync.ps.server_bandwidth=" + gbps(d.server),
         std::string("sync.ps.update=") + (pick(2) ? "server" : "worker"),
         std::string("sync.ps.pull=") + ((d.forward_pull = pick(3) == 0) ? "forward" : "eager")});
  } else {
    const char* algorithms[] = {"ring", "tree", "halving-doubling", "hierarchical"};
    d.set.push_back(std::string("sync.algorithm=") + algorithms[pick(4)]);
    if (pick(3) == 0 && !priority)
      d.set.push_back("sync.fusion.cycle_time=" + std::to_string(1 + pick(5)) + "ms");
  }
  return d;
}

// Every bandwidth of the scenario times `factor`.
std::vector<std::string> scaled(const Draw& d, double factor) {
  std::vector<std::string> set = d.set;
  set.insert(set.end(),
             {"cluster.nic.bandwidth=" + gbps(d.nic * factor),
              "cluster.intra_node.bandwidth=" + std::to_string(d.intra * factor / 1e9) + "GB/s",
              "cluster.pcie=" + std::to_string(d.pcie * factor / 1e9) + "GB/s"});
  if (d.ps) set.push_back("sync.ps.server_bandwidth=" + gbps(d.server * factor));
  return set;
}

SimulationResult run(const std::vector<std::string>& set) {
  return simulate(parse_scenario_text(kBase, "property.yaml", set), {TraceGpus::none(), false});
}

std::string describe(int seed, const Draw& d) {
  std::string out = "seed " + std::to_string(seed) + ":";
  for (const std::string& s : d.set) out += " --set " + s;
  return out;
}

void check_properties(int first_seed) {
  int stragglers_checked = 0, straggler_labels = 0, judged = 0, drawn_checked = 0;
  double drawn_most = 0;  // the largest share of the drawn schedule's allowance used
  int drawn_most_seed = -1;
  for (int seed = first_seed; seed < 100; seed += 2) {
    const Draw d = draw(seed);
    SCOPED_TRACE(describe(seed, d));
    const SimulationResult base = run(d.set);
    ASSERT_GT(base.samples_per_second, 0);

    std::vector<std::string> jitter = d.set;
    jitter.insert(jitter.end(), {"stragglers.kind=lognormal", "stragglers.sigma=0.001",
                                 "stragglers.per_iteration=true"});
    EXPECT_NEAR(run(jitter).samples_per_second, base.samples_per_second,
                0.01 * base.samples_per_second)
        << "sigma = 0.001 jitter";

    if (d.ps && (!d.colocated || d.servers < d.nodes)) {
      // Why 0.5 % plus one partition. The pipelined PS's closed form (pipelined_ps_time(),
      // sim/cost/ps_pipeline.h; n workers, k servers, P partitions of s = S/P bytes) is
      //   step(k) = max(S/B_w, n S/(k B_s)) (1 + k/P) + 2 alpha.
      // While the workers' links bind (S/B_w >= n S/(k B_s)), step(k+1) - step(k) = S/(P B_w) =
      // s/B_w: each further server adds exactly one partition's time on the worker link to the
      // pipeline fill (a worker sends one partition to every server before the first pull can
      // start), so more servers CAN be slower, by that much and no more. While the servers'
      // links bind, the fill n S/(P B_s) does not depend on k and the bound term falls, so the
      // step shrinks, except that keys are whole partitions: least-loaded placement leaves the
      // busiest server at most one partition above its share, n s/B_s on its link. The
      // allowance is the larger of the two, plus 0.5 % for what the closed form leaves out
      // (compute overlap, bucket boundaries, latency per message). Asserted with BytePS's
      // schedule (fifo, eager pulls).
      const double grain = d.partition * std::max(1 / d.nic, d.nodes / d.server);
      std::vector<std::string> fifo = d.set;
      fifo.insert(fifo.end(), {"sync.schedule=fifo", "sync.ps.pull=eager"});
      const double step = run(fifo).iteration_time;
      fifo.push_back("sync.ps.servers=" + std::to_string(d.servers + 1));
      EXPECT_LE(run(fifo).iteration_time, step * 1.005 + grain) << "one more server (fifo, eager)";
      if (d.priority || d.forward_pull) {
        // Under the drawn schedule (priority, TensorFlow's pulls in forward order) the next
        // forward waits for the first layers' partitions, and they go first only inside each
        // connection: a message already on the wire is not preempted. A connection period
        //   T(k) = s max(k/B_w, n/B_s)     dedicated: k connections share a worker's link, n a
        //                                  server's (pipelined_ps_time()),
        //   T(k) = s (k + n - 2)/B_w       colocated: a node's link carries its pushes to the
        //                                  k-1 other servers and its server's pulls to the n-1
        //                                  other nodes,
        // is what one partition takes while every connection of its links is busy. In each
        // direction that orders them, the critical partition can find a lower-priority one on
        // the wire of its connection with anything from 0 to T(k) left, a phase set by where
        // every earlier partition went, which moves with k; and its own crossing grows with k
        // by at most the grain, as the last partition's does in the closed form. With pulls in
        // forward order and fifo pushes that is one direction (the critical partition's push is
        // the last of the fifo stream, covered above): grain + T(k+1). Priority orders the
        // pushes as well, and its credit (5 partitions in flight) can hold the critical push
        // until one in flight lands (within T) before it queues behind the one on its own
        // connection's wire (another T): 2 grain + 3 T(k+1) in all. The mechanism on a
        // hand-made case, to 1e-6, with one and two servers: parameter_server_test.cpp,
        //   ParameterServerClosedForm.OrderedScheduleWaitsBehindThePartitionOnTheWire.
        // Measured 2026-11-27 (0.5 % + grains + periods): seed 66 (fifo, forward pulls, 3 -> 4
        // dedicated servers) +2.471 ms against 0.272 + 0.649 + 2.598 = 3.519 allowed; seed 10
        // (priority, colocated, 1 -> 2) +0.818 ms against 0.140 + 2 x 0.524 + 3 x 0.524 = 2.761;
        // seed 12 (priority, dedicated, 1 -> 2) +0.301 ms against 0.087 + 2 x 0.139 + 3 x 0.279
        // = 1.201. Over the 287 drawn-schedule scenarios of seeds 0 to 1098, 22 exceed the fifo
        // allowance and none this one (at most 70 % of it used, seed 66; 40 % under priority);
        // docs/sync-comparison.md.
        std::vector<std::string> drawn = d.set;
        drawn.push_back("sync.ps.servers=" + std::to_string(d.servers + 1));
        const double more = run(drawn).iteration_time;
        const double k = d.servers + 1, n = d.nodes;
        const double period =
            d.partition * (d.colocated ? (k + n - 2) / d.nic : std::max(k / d.nic, n / d.server));
        const double allowed =
            base.iteration_time * 0.005 + grain + period + (d.priority ? grain + 2 * period : 0);
        ++drawn_checked;
        if ((more - base.iteration_time) / allowed > drawn_most) {
          drawn_most = (more - base.iteration_time) / allowed;
          drawn_most_seed = seed;
        }
        EXPECT_LE(more, base.iteration_time + allowed)
            << "one more server (the drawn schedule and pulls): " << more << " s against "
            << base.iteration_time << " s, waiting period " << period << " s";
      }
    }

    EXPECT_LE(run(scaled(d, 2)).iteration_time, base.iteration_time * (1 + 1e-9))
        << "every bandwidth doubled";

    if (seed % 4 < 2) {  // half of each kind also runs with a straggler, compute-heavier
      const std::vector<std::string> straggling = {
          "stragglers.kind=fixed", "stragglers.fixed={0: 1.5}",
          "compute.step_time=" + std::to_string(32 << (seed / 4 % 4)) + "ms"};
      std::vector<std::string> slow = d.set;
      slow.insert(slow.end(), straggling.begin(), straggling.end());
      const SimulationResult straggler = run(slow);
      std::vector<std::string> fast = scaled(d, 10);
      fast.insert(fast.end(), straggling.begin(), straggling.end());
      const double gain = run(fast).samples_per_second / straggler.samples_per_second - 1;
      ++stragglers_checked;
      straggler_labels += straggler.bottleneck == "straggler-bound";
      if (gain < 0.01) {
        ++judged;
        EXPECT_NE(straggler.bottleneck, "communication-bound")
            << "10x bandwidth gains " << 100 * gain << " %";
      }
    }
  }
  if (first_seed % 2 == 0) {
    std::printf(
        "one more server under the drawn schedule: %d scenarios checked, at most %.0f %% of the "
        "allowance used (seed %d)\n",
        drawn_checked, 100 * drawn_most, drawn_most_seed);
    EXPECT_GE(drawn_checked, 10);
  }
  // The straggler check must have had cases to judge.
  EXPECT_EQ(stragglers_checked, 25);
  EXPECT_GE(judged, 3);
  EXPECT_GE(straggler_labels, 3);
}

// Even seeds: parameter servers; odd: all-reduce (two tests, so ctest runs them side by side).
TEST(SyncProperties, HoldOverFiftyRandomParameterServerScenarios) { check_properties(0); }
TEST(SyncProperties, HoldOverFiftyRandomAllReduceScenarios) { check_properties(1); }

}  // namespace
}  // namespace ddpsim
