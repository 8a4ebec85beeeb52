// Schedulers of all-reduce communication on the SimGrid platform, against hand-derived timelines:
// Horovod's fusion cycle on two tensors, ByteScheduler's priority order on a two-layer model, and
// the split of a synchronisation wait into straggler wait and exposed communication. Two
// single-GPU nodes with a 1 GB/s NIC and no latency (latency_model alpha: NCCL's own per-call
// latency left out), so a ring all-reduce of S bytes takes exactly
// S / B (2 (p-1) / p = 1); compute comes from a hand-made plan.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "sim/cost/comm_schedule.h"
#include "sim/cost/effective_scenario.h"
#include "sim/engine/scheduled_allreduce.h"
#include "sim/engine/simulation.h"
#include "sim/engine/sync_factory.h"
#include "sim/input/scenario_loader.h"
#include "tests/sim_harness.h"
#include "tests/worker_loop.h"

namespace ddpsim {
namespace {

using testing::make_cluster;
using testing::run_in_engine;

constexpr double kB = 1e9;  // NIC bytes/s

// Layers in forward order; each holds one tensor. Backward runs from the last layer down.
struct Layer {
  double forward = 0, backward = 0, bytes = 0;
};

struct Job {
  std::vector<Layer> layers;
  int steps = 1, warmup = 0;
  FusionSpec fusion;
  CommSchedule schedule = CommSchedule::kFifo;
  double partition = 4096000;
  std::map<int, double> slow;  // rank -> straggler factor
  int nodes = 2;
};

Scenario scenario_of(const Job& job) {
  Scenario s;
  s.cluster = make_cluster(job.nodes, 1);
  s.cluster.nic.bandwidth = kB;
  s.cluster.nic.latency = 0;
  s.cluster.intra_node.latency = 0;
  s.training.iterations = job.steps;
  s.training.warmup = job.warmup;
  s.sync.strategy = SyncStrategy::kAllReduce;
  s.sync.algorithm = AllReduceAlgorithm::kRing;
  s.sync.latency_model = LatencyModel::kAlpha;  // alpha = 0: a call costs its bytes only
  s.sync.bucket_cap = 0;
  s.sync.fusion = job.fusion;
  s.sync.schedule = job.schedule;
  s.sync.partition = job.partition;
  if (!job.slow.empty()) {
    s.stragglers.kind = StragglerKind::kFixed;
    s.stragglers.fixed = job.slow;
  }
  return s;
}

// Per-tensor units in backward order (the last layer first), as build_iteration_plan makes them.
IterationPlan plan_of(const Job& job) {
  IterationPlan plan;
  const int n = static_cast<int>(job.layers.size());
  plan.per_tensor = true;
  plan.layer_buckets.assign(n, {});
  plan.optimizer_share.assign(n, 0.0);
  for (int l = n - 1; l >= 0; --l) {
    Bucket b;
    b.tensors.push_back({l, 0, job.layers[l].bytes});
    b.bytes = job.layers[l].bytes;
    b.ready_layer = l;
    plan.layer_buckets[l].push_back(static_cast<int>(plan.buckets.size()));
    plan.buckets.push_back(b);
    plan.backward_segments.push_back(job.layers[l].backward);
    plan.gradient_bytes += b.bytes;
  }
  plan.backward_segments.push_back(0);
  for (const Layer& l : job.layers) {
    plan.compute.layers.push_back({l.forward, l.backward});
    plan.compute.forward += l.forward;
    plan.compute.backward += l.backward;
  }
  return plan;
}

struct Outcome {
  double step = 0;                 // mean measured step, latest GPU
  double straggler = 0, comm = 0;  // breakdown, mean over GPUs and measured steps
};

Outcome run(const Job& job) {
  const Scenario s = effective_scenario(scenario_of(job));  // as simulate() resolves it
  const IterationPlan plan = plan_of(job);
  const std::vector<double> v = run_in_engine([&]() -> std::vector<double> {
    ClusterPlatform pf = build_cluster_platform(s.cluster, platform_extras(s));
    RunContext ctx;
    testing::run_worker_loop(s, plan, &pf, make_gradient_sync, &ctx);
    auto latest = [&](int step) {
      double t = 0;
      for (const WorkerStats& w : ctx.workers) t = std::max(t, w.step_end[step]);
      return t;
    };
    const int measured = job.steps - job.warmup;
    const double start = job.warmup > 0 ? latest(job.warmup - 1) : 0.0;
    double straggler = 0, comm = 0;
    for (const WorkerStats& w : ctx.workers) {
      straggler += w.sum.straggler_wait;
      comm += w.sum.exposed_comm;
    }
    const double p = static_cast<double>(ctx.workers.size());
    return {(latest(job.steps - 1) - start) / measured, straggler / p / measured,
            comm / p / measured};
  });
  if (v.size() != 3) return {};
  return {v[0], v[1], v[2]};
}

void expect_relative(double got, double want, double tolerance = 1e-6) {
  EXPECT_NEAR(got, want, tolerance * want) << "relative error " << (got - want) / want;
}

// ---------------------------------------------------------------- Horovod tensor fusion

TEST(HorovodFusion, BuffersTakeConsecutiveReadyTensorsUpToTheThreshold) {
  using Groups = std::vector<std::vector<int>>;
  EXPECT_EQ(fuse_tensors({3, 3, 3}, 6), (Groups{{0, 1}, {2}}));
  EXPECT_EQ(fuse_tensors({3, 3, 3}, 0), (Groups{{0}, {1}, {2}}));        // fusion off
  EXPECT_EQ(fuse_tensors({2, 9, 1, 1}, 4), (Groups{{0}, {1}, {2, 3}}));  // 9 goes alone
  EXPECT_DOUBLE_EQ(next_cycle_start(0.3e-3, 0, 1e-3), 1e-3);
  EXPECT_DOUBLE_EQ(next_cycle_start(2e-3, 0, 1e-3), 2e-3);
  EXPECT_DOUBLE_EQ(default_coordination(8, 3e-6), 18e-6);
}

// Two tensors: layer 1's (10 MB) is ready 0.3 ms into backward, layer 0's (20 MB) later.
Job two_tensors(double second_ready, double threshold, double cycle, double coordination) {
  Job job;
  job.layers = {{0, second_ready - 0.3e-3, 20e6}, {0, 0.3e-3, 10e6}};
  job.fusion.enabled = true;
  job.fusion.threshold = threshold;
  job.fusion.cycle_time = cycle;
  job.fusion.coordination = coordination;
  return job;
}

TEST(HorovodFusion, ReadyTensorsWaitForTheNextCycleAndFuseWhenTheyMeetThere) {
  const double c = 50e-6;  // coordination per cycle
  // The first tensor is ready at 0.3 ms: the step's first cycle comes half a cycle later, at
  // 0.8 ms, then every 1 ms. Both ready by then: one fused all-reduce of 30 MB after the
  // coordination.
  expect_relative(run(two_tensors(0.6e-3, 64e6, 1e-3, c)).step, 0.8e-3 + c + 30e6 / kB);
  // Both in the same cycle but 30 MB > 16 MB: two buffers, back to back on the stream.
  expect_relative(run(two_tensors(0.6e-3, 16e6, 1e-3, c)).step, 0.8e-3 + c + 10e6 / kB + 20e6 / kB);
  // The second is ready at 1.6 ms, after the first cycle took the first alone: its cycle is at
  // 1.8 ms, but the stream is busy with the 10 MB until 0.8 ms + c + 10 ms.
  expect_relative(run(two_tensors(1.6e-3, 64e6, 1e-3, c)).step, 0.8e-3 + c + 10e6 / kB + 20e6 / kB);
  // A 5 ms cycle (Horovod before 0.21): the first cycle at 0.3 + 2.5 ms takes both, fused.
  expect_relative(run(two_tensors(1.6e-3, 64e6, 5e-3, c)).step, 2.8e-3 + c + 30e6 / kB);
  // Small tensors and a fast stream: the second cycle, at 1.8 ms, starts the second buffer.
  Job small = two_tensors(1.6e-3, 64e6, 1e-3, c);
  small.layers[0].bytes = 0.2e6;
  small.layers[1].bytes = 0.1e6;
  expect_relative(run(small).step, 1.8e-3 + c + 0.2e6 / kB);
}

// ---------------------------------------------------------------- priority scheduling

// Two layers of 40 MB (40 ms each on the stream), forward 10 ms per layer, backward 10 ms for
// layer 1 then 15 ms for layer 0.
Job two_layers(CommSchedule schedule) {
  Job job;
  job.layers = {{10e-3, 15e-3, 40e6}, {10e-3, 10e-3, 40e6}};
  job.schedule = schedule;
  job.partition = 10e6;  // 10 ms pieces
  job.steps = 6;
  job.warmup = 2;
  return job;
}

TEST(PrioritySchedule, TwoLayerModelMatchesItsClosedForm) {
  // FIFO (one all-reduce per tensor, the step waits for both): forward 20 + backward 10, then
  // layer 1's all-reduce (40) and layer 0's (40; ready 15 ms after layer 1's started):
  //   110 ms.
  expect_relative(run(two_layers(CommSchedule::kFifo)).step, 110e-3);
  // Priority: layer 1's pieces start when ready (R1); layer 0 is ready b0 = 15 ms later, so it
  // starts after the second 10 ms piece (R1 + 20) and ends at R1 + 60, the rest of layer 1 at
  // R1 + 80. The next forward runs layer 0 from R1 + 60 and layer 1 from
  // max(R1 + 60 + f0, R1 + 80); its forward and backward (f1 + b1 = 20 ms) end the next R1:
  //   period = max(ceil(b0/c) c + t0 + f0, t1 + t0) + f1 + b1 = max(70, 80) + 20 = 100 ms.
  expect_relative(run(two_layers(CommSchedule::kPriority)).step, 100e-3);
}

TEST(PrioritySchedule, NeverSlowerThanFifoOnCommunicationBoundModels) {
  for (const char* model : {"resnet50", "vgg16"}) {
    for (const char* strategy : {"allreduce", "ps"}) {
      SCOPED_TRACE(std::string(model) + " " + strategy);
      const std::string text = std::string(R"(
cluster:
  nodes: 4
  gpus_per_node: 2
  gpu: v100-sxm2-16gb
  intra_node: {kind: nvswitch, bandwidth: 150GB/s, latency: 1us}
  pcie: 16GB/s
  nic: {count: 1, bandwidth: 5Gbps, latency: 5us}
model: {name: )") + model + R"(}
training: {batch_per_gpu: 32, iterations: 4, warmup: 1}
sync: {strategy: )" + strategy +
                               R"(, bucket_cap: 0, ps: {servers: 4}}
)";
      const SimulationResult fifo =
          simulate(parse_scenario_text(text, "p.yaml", {}), {TraceGpus::none(), false});
      const SimulationResult priority =
          simulate(parse_scenario_text(text, "p.yaml", {"sync.schedule=priority"}),
                   {TraceGpus::none(), false});
      EXPECT_EQ(fifo.bottleneck, "communication-bound");
      EXPECT_LE(priority.iteration_time, fifo.iteration_time * (1 + 1e-9));
    }
  }
}

// ---------------------------------------------------------------- straggler wait

TEST(StragglerWait, FastGpusWaitForTheSlowOneAndThatIsNotCommunication) {
  // Four nodes, one layer of 1 MB (1 ms on the stream), forward 20 ms, backward 30 ms; GPU 2
  // runs 1.5x slower. A fast GPU finishes backward at 50 ms after the step began, GPU 2 at 75:
  // the fast ones wait 25 ms for it (straggler), then everyone waits the all-reduce (1.5 ms:
  // 2 (p-1)/p = 1.5 for p = 4) as exposed communication. Mean over the four GPUs: 3/4 x 25 ms.
  Job job;
  job.nodes = 4;
  job.layers = {{20e-3, 30e-3, 1e6}};
  job.steps = 3;
  job.warmup = 1;
  job.slow = {{2, 1.5}};
  const Outcome o = run(job);
  expect_relative(o.step, 75e-3 + 1.5e-3);
  expect_relative(o.straggler, 0.75 * 25e-3);
  expect_relative(o.comm, 1.5e-3);
}

}  // namespace
}  // namespace ddpsim
