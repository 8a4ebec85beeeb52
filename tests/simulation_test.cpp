// End-to-end: whole iterations on SimGrid against closed forms and monotonic effects.
#include "sim/engine/simulation.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "sim/cost/iteration_plan.h"
#include "sim/input/scenario_loader.h"
#include "sim/model/model_zoo.h"
#include "sim/process/isolated.h"
#include "sim/results/result_json.h"
#include "tests/nic_bound_cluster.h"

namespace ddpsim {
namespace {

using testing::kNicBound;
using testing::model_of;
using testing::ring_time;

Scenario scenario(const std::string& text, std::vector<std::string> overrides = {}) {
  return parse_scenario_text(text, "test.yaml", overrides);
}

// The step time the DDP pipeline implies: bucket b's all-reduce starts when it is full and the
// previous one is done; the optimizer waits for the last.
double expected_step(const IterationPlan& plan, int p, double bw, double alpha, bool overlap) {
  const double fwd = plan.compute.forward, bwd = plan.compute.backward;
  double ready = fwd, comm_end = 0;
  for (size_t b = 0; b < plan.buckets.size(); ++b) {
    ready += plan.backward_segments[b];
    const double start = overlap ? std::max(ready, comm_end) : std::max(fwd + bwd, comm_end);
    comm_end = start + ring_time(p, plan.buckets[b].bytes, bw, alpha);
  }
  return std::max(fwd + bwd, comm_end) + plan.compute.optimizer;
}

TEST(Simulation, SingleGpuHasNoCommunicationAndRunsAtThePlannedStepTime) {
  const Scenario s = scenario(kNicBound, {"cluster.nodes=1"});
  const IterationPlan plan = build_iteration_plan(s, model_of(s));
  const SimulationResult r = simulate(s);
  EXPECT_NEAR(r.iteration_time, plan.compute.step_time(1), 1e-9 * r.iteration_time);
  EXPECT_DOUBLE_EQ(r.comm_time, 0);
  EXPECT_DOUBLE_EQ(r.breakdown.exposed_comm, 0);
  EXPECT_DOUBLE_EQ(r.bytes_sent, 0);
  EXPECT_NEAR(r.scaling_efficiency, 1.0, 1e-12);
  EXPECT_EQ(r.bottleneck, "compute-bound");
}

TEST(Simulation, OverlappedBucketsMatchThePipelineClosedForm) {
  for (bool overlap : {true, false}) {
    const Scenario s =
        scenario(kNicBound, {std::string("sync.overlap=") + (overlap ? "true" : "false")});
    const IterationPlan plan = build_iteration_plan(s, model_of(s));
    const SimulationResult r = simulate(s, {TraceGpus::none(), false});
    const double expected = expected_step(plan, 8, 25e9 / 8, 5e-6, overlap);
    EXPECT_NEAR(r.iteration_time, expected, 1e-6 * expected) << "overlap " << overlap;
  }
}

TEST(Simulation, BreakdownAddsUpToTheIterationTime) {
  const SimulationResult r = simulate(scenario(kNicBound), {TraceGpus::none(), false});
  EXPECT_NEAR(r.breakdown.total(), r.iteration_time, 1e-9 * r.iteration_time);
  EXPECT_GT(r.breakdown.exposed_comm, 0);
  EXPECT_GE(r.comm_time, r.breakdown.exposed_comm);
}

TEST(Simulation, RingBytesAreConservedAndEqualTheTheoreticalVolume) {
  const Scenario s = scenario(kNicBound);
  const IterationPlan plan = build_iteration_plan(s, model_of(s));
  const SimulationResult r = simulate(s, {TraceGpus::none(), false});
  EXPECT_NEAR(r.bytes_sent, r.bytes_received, 1e-9 * r.bytes_sent);
  // Every rank sends 2(p-1)/p of the gradients per step.
  EXPECT_NEAR(r.bytes_sent, 8 * 2.0 * 7 / 8 * plan.gradient_bytes, 1e-9 * r.bytes_sent);
}

TEST(Simulation, MoreNicBandwidthNeverSlowsAnIteration) {
  for (const char* model : {"resnet50", "vgg16"}) {
    double previous = 1e30;
    for (const char* bw :
         {"1Gbps", "10Gbps", "25Gbps", "50Gbps", "100Gbps", "200Gbps", "400Gbps"}) {
      const SimulationResult r =
          simulate(scenario(kNicBound, {std::string("model.name=") + model,
                                        std::string("cluster.nic.bandwidth=") + bw}),
                   {TraceGpus::none(), false});
      EXPECT_LE(r.iteration_time, previous * (1 + 1e-12)) << model << " " << bw;
      previous = r.iteration_time;
    }
  }
}

TEST(Simulation, OverlapIsNeverSlowerThanNoOverlap) {
  for (const char* bw : {"10Gbps", "100Gbps"})
    for (const char* cap : {"1MiB", "25MiB", "100MiB"}) {
      const std::vector<std::string> base = {std::string("cluster.nic.bandwidth=") + bw,
                                             std::string("sync.bucket_cap=") + cap};
      auto with = base, without = base;
      with.push_back("sync.overlap=true");
      without.push_back("sync.overlap=false");
      const double t_on =
          simulate(scenario(kNicBound, with), {TraceGpus::none(), false}).iteration_time;
      const double t_off =
          simulate(scenario(kNicBound, without), {TraceGpus::none(), false}).iteration_time;
      EXPECT_LE(t_on, t_off * (1 + 1e-12)) << bw << " " << cap;
    }
}

TEST(Simulation, SameInputGivesByteIdenticalResults) {
  const Scenario s = scenario(kNicBound, {"stragglers.kind=lognormal", "stragglers.sigma=0.2"});
  const std::string a = result_to_json(simulate(s)).dump();
  const std::string b = result_to_json(simulate(s)).dump();
  EXPECT_EQ(a, b);
}

TEST(Simulation, GradientAccumulationReducesOncePerStep) {
  const SimulationResult one = simulate(scenario(kNicBound), {TraceGpus::none(), false});
  const SimulationResult four = simulate(scenario(kNicBound, {"training.gradient_accumulation=4"}),
                                         {TraceGpus::none(), false});
  EXPECT_NEAR(four.bytes_sent, one.bytes_sent, 1e-9 * one.bytes_sent);
  EXPECT_NEAR(four.global_batch, 4 * one.global_batch, 1e-9);
  EXPECT_GT(four.samples_per_second, one.samples_per_second);  // comm amortised over 4 batches
}

TEST(Simulation, SynchronousAllReduceWaitsForTheSlowestGpu) {
  const SimulationResult even = simulate(scenario(kNicBound), {TraceGpus::none(), false});
  const SimulationResult slow =
      simulate(scenario(kNicBound, {"stragglers.kind=fixed", "stragglers.fixed={3: 1.5}"}),
               {TraceGpus::none(), false});
  const double compute = even.breakdown.forward + even.breakdown.backward;
  // Everyone finishes after the straggler's compute; the others wait for it (straggler wait),
  // then all of them for the communication only the straggler's own step leaves exposed.
  EXPECT_GE(slow.iteration_time, 1.5 * compute);
  EXPECT_EQ(even.breakdown.straggler_wait, 0);
  EXPECT_GT(slow.breakdown.straggler_wait, 7.0 / 8 * 0.45 * compute);
}

TEST(Simulation, LocalSgdCommunicatesOnceEveryPeriod) {
  const SimulationResult ddp =
      simulate(scenario(kNicBound, {"training.iterations=9", "training.warmup=1"}),
               {TraceGpus::none(), false});
  const SimulationResult local =
      simulate(scenario(kNicBound, {"training.iterations=9", "training.warmup=1",
                                    "sync.strategy=local-sgd", "sync.local_sgd.period=3"}),
               {TraceGpus::none(), false});
  EXPECT_NEAR(local.bytes_sent * 3, ddp.bytes_sent, 1e-9 * ddp.bytes_sent);
  EXPECT_GT(local.samples_per_second, ddp.samples_per_second);
}

TEST(Simulation, OneGpuBaselineKeepsItsPcieSwitch) {
  // Two GPUs of a node behind one PCIe switch (a K80 board): the one-GPU baseline of the scaling
  // efficiency keeps a switch of its own instead of one that no longer divides the node.
  const Scenario s = scenario(
      kNicBound, {"cluster.nodes=1", "cluster.gpus_per_node=2", "cluster.intra_node.kind=pcie",
                  "cluster.pcie_switch={gpus: 2, uplink: 12GB/s}"});
  const SimulationResult r = simulate(s);
  EXPECT_GT(r.single_gpu_samples_per_second, 0);
  EXPECT_GT(r.scaling_efficiency, 0);
  EXPECT_LE(r.scaling_efficiency, 1 + 1e-9);
}

TEST(Simulation, MeasuredModeReproducesTheGivenSingleGpuStepTime) {
  const Scenario s =
      scenario(kNicBound, {"cluster.nodes=1", "compute.mode=measured", "compute.step_time=123ms"});
  const SimulationResult r = simulate(s);
  EXPECT_NEAR(r.iteration_time, 0.123, 1e-9);
}

// simulate_here() runs in a pool's child what simulate() forks for: the same result to the byte,
// with the baseline (which it forks before its own run) and without, and for a one-GPU job whose
// run is its own baseline.
TEST(Simulation, SimulateHereGivesSimulatesResultByteForByte) {
  for (const std::vector<std::string>& sets :
       {std::vector<std::string>{}, {"cluster.nodes=1", "cluster.gpus_per_node=1"}}) {
    const Scenario s = scenario(kNicBound, sets);
    for (const bool baseline : {true, false}) {
      SimOptions o;
      o.baseline = baseline;
      const std::string forked = result_to_json(simulate(s, o)).dump();
      const IsolatedResult here =
          run_isolated([&] { return result_to_json(simulate_here(s, o)).dump(); });
      ASSERT_TRUE(here.ok) << here.payload;
      EXPECT_EQ(here.payload, forked)
          << "baseline " << baseline << ", GPUs " << s.cluster.total_gpus();
      EXPECT_EQ(forked.find("\"scaling_efficiency\":null") == std::string::npos, baseline);
    }
  }
}

}  // namespace
}  // namespace ddpsim
