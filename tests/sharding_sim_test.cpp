// Sharded data parallelism as the simulator replays it (sim/engine/sharded_worker.h,
// docs/sharding.md): the closed form of a ZeRO-3 step without overlap, prefetch and overlap that
// never slow a step down, conservation of bytes, and the equivalences that must hold.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "sim/cost/shard_units.h"
#include "sim/engine/simulation.h"
#include "sim/model/model_zoo.h"
#include "sim/input/scenario_loader.h"

namespace ddpsim {
namespace {

// One node of 8 GPUs on an NVSwitch of 100 GB/s per GPU, alpha latency 5 us: each ring edge is
// one GPU's uplink and the next GPU's downlink, so a ring all-gather or reduce-scatter of S bytes
// takes exactly (p-1)/p S/B + (p-1) alpha.
const char* kNode = R"(name: sharded
cluster:
  nodes: 1
  gpus_per_node: 8
  gpu: a100-sxm-80gb
  intra_node: {kind: nvswitch, bandwidth: 100GB/s, latency: 5us}
  pcie: 32GB/s
  nic: {count: 1, bandwidth: 100Gbps, latency: 2us}
model: {name: mlp, layers: [4096, 8192, 8192, 8192, 1000]}
training: {batch_per_gpu: 64, precision: bf16, optimizer: adam, iterations: 3, warmup: 1}
sync: {strategy: allreduce, algorithm: ring, latency_model: alpha, sharding: zero3}
compute: {mode: roofline, efficiency: 0.5}
)";

// Two nodes of 4 GPUs behind 100 Gbit/s NICs: communication about a third of compute, GPT-2 small.
const char* kTwoNodes = R"(name: sharded-gpt2
cluster:
  nodes: 2
  gpus_per_node: 4
  gpu: a100-sxm-80gb
  intra_node: {kind: nvswitch, bandwidth: 300GB/s, latency: 1us}
  pcie: 32GB/s
  nic: {count: 1, bandwidth: 100Gbps, latency: 2us}
model: {name: gpt2, sequence_length: 1024}
training: {batch_per_gpu: 8, precision: bf16, optimizer: adam, iterations: 3, warmup: 1}
sync: {strategy: allreduce, algorithm: ring, sharding: zero3}
compute: {mode: roofline, efficiency: 0.5}
)";

Scenario node(std::vector<std::string> overrides = {}) {
  return parse_scenario_text(kNode, "sharded.yaml", overrides);
}
Scenario two_nodes(std::vector<std::string> overrides = {}) {
  return parse_scenario_text(kTwoNodes, "sharded-gpt2.yaml", overrides);
}

SimulationResult run(const Scenario& s) { return simulate(s, {TraceGpus::none(), false}); }

double ring_time(int p, double bytes, double bandwidth, double alpha) {
  return (p - 1.0) / p * bytes / bandwidth + (p - 1) * alpha;
}

double compute_of(const SimulationResult& r) {
  return r.breakdown.forward + r.breakdown.backward + r.breakdown.optimizer;
}

TEST(ShardedStep, Zero3WithoutOverlapIsThreeCollectivesOfEveryUnit) {
  // Gradients reduce-scattered at sync.gradient_dtype: fp32 when stated; by default at FSDP's
  // reduce_dtype default, param_dtype (bf16 here: 2 bytes).
  for (const auto& [dtype, g] : {std::pair<std::string, double>{"fp32", 4}, {"", 2}})
    for (int micro : {1, 3}) {
      SCOPED_TRACE(micro);
      SCOPED_TRACE(dtype);
      std::vector<std::string> set = {"sync.overlap=false",
                                      "training.gradient_accumulation=" + std::to_string(micro)};
      if (!dtype.empty()) set.push_back("sync.gradient_dtype=" + dtype);
      const Scenario s = node(set);
      Model m;
      std::string error;
      ASSERT_TRUE(build_model(s.model, &m, &error)) << error;
      const std::vector<ShardUnit> units = shard_units(m, 0);
      ASSERT_EQ(units.size(), 5u);  // the root (ReLUs and the loss: no parameters) and 4 linears
      ASSERT_EQ(units[0].params, 0);
      double expected = 0;
      for (const ShardUnit& u : units) {
        const double psi = static_cast<double>(u.params);
        if (psi == 0) continue;
        // All-gather before forward and before backward (bf16: 2 bytes), reduce-scatter (g).
        expected += 2 * ring_time(8, 2 * psi, 100e9, 5e-6) + ring_time(8, g * psi, 100e9, 5e-6);
      }
      expected *= micro;
      const SimulationResult r = run(s);
      EXPECT_NEAR(r.breakdown.exposed_comm, expected, 1e-6 * expected);
      EXPECT_NEAR(r.iteration_time, compute_of(r) + expected, 1e-6 * r.iteration_time);
    }
}

TEST(ShardedStep, Zero1AndZero2WithoutOverlapAreReduceScatterAndAllGather) {
  // DeepSpeed stages 1 and 2 move the parameter volume twice: reduce-scatter of the gradients
  // and all-gather of the updated parameters, in the DDP buckets (one bucket here: 1 GiB cap).
  Model m;
  std::string error;
  ASSERT_TRUE(build_model(node().model, &m, &error)) << error;
  const double psi = static_cast<double>(m.params());
  for (const char* stage : {"zero1", "zero2"}) {
    SCOPED_TRACE(stage);
    const SimulationResult r =
        run(node({std::string("sync.sharding=") + stage, "sync.overlap=false",
                  "sync.bucket_cap=1GiB", "sync.first_bucket=1GiB"}));
    const double expected = ring_time(8, 4 * psi, 100e9, 5e-6) + ring_time(8, 2 * psi, 100e9, 5e-6);
    EXPECT_NEAR(r.breakdown.exposed_comm, expected, 1e-6 * expected);
  }
}

TEST(ShardedStep, OverlapAndPrefetchNeverSlower) {
  const double blocking = run(two_nodes({"sync.overlap=false"})).iteration_time;
  const double none = run(two_nodes({"sync.fsdp.backward_prefetch=none"})).iteration_time;
  const double post = run(two_nodes({"sync.fsdp.backward_prefetch=post"})).iteration_time;
  const double pre = run(two_nodes({"sync.fsdp.backward_prefetch=pre"})).iteration_time;
  const double ahead = run(two_nodes({"sync.fsdp.forward_prefetch=true"})).iteration_time;
  const double unlimited = run(two_nodes({"sync.fsdp.limit_all_gathers=false"})).iteration_time;
  const double tiny = 1e-9 * blocking;
  EXPECT_LE(none, blocking + tiny);
  EXPECT_LE(post, none + tiny);
  EXPECT_LE(pre, post + tiny);
  EXPECT_LE(ahead, pre + tiny);
  EXPECT_LE(unlimited, pre + tiny);
  // And it matters here: prefetching hides backward's all-gathers behind compute; post issues
  // them at least ahead of the reduce-scatter on the communicator's FIFO.
  EXPECT_LT(post, 0.97 * none) << post << " vs " << none;
  EXPECT_LT(pre, 0.97 * post) << pre << " vs " << post;
}

TEST(ShardedStep, MoreBandwidthNeverSlower) {
  for (const char* stage : {"zero2", "zero3", "fsdp-hybrid"}) {
    SCOPED_TRACE(stage);
    double previous = 0;
    for (const char* nic : {"400Gbps", "100Gbps", "25Gbps", "10Gbps"}) {
      const double t = run(two_nodes({std::string("sync.sharding=") + stage,
                                      std::string("cluster.nic.bandwidth=") + nic}))
                           .iteration_time;
      EXPECT_GE(t, previous * (1 - 1e-9)) << nic;
      previous = t;
    }
  }
}

TEST(ShardedStep, HybridOnOneNodeIsZero3) {
  const SimulationResult zero3 = run(node());
  const SimulationResult hybrid = run(node({"sync.sharding=fsdp-hybrid"}));
  EXPECT_NEAR(hybrid.iteration_time, zero3.iteration_time, 1e-9 * zero3.iteration_time);
  EXPECT_NEAR(hybrid.breakdown.exposed_comm, zero3.breakdown.exposed_comm,
              1e-9 * zero3.iteration_time);
}

TEST(ShardedStep, ShardingAppearsInNotesAndBuckets) {
  const SimulationResult r = run(two_nodes());
  EXPECT_NE(r.notes.find("zero3 (FSDP FULL_SHARD"), std::string::npos) << r.notes;
  ASSERT_FALSE(r.buckets.empty());
  EXPECT_NE(r.buckets[1].algorithm.find("reduce-scatter"), std::string::npos)
      << r.buckets[1].algorithm;
  EXPECT_GT(r.comm_time, 0);
}

}  // namespace
}  // namespace ddpsim
