// Degenerate but legal scenarios give well-defined numbers: one GPU (no communication at all), a
// 1x1 MLP (8 bytes of gradients), zero-latency links, a model without parameters (no bucket);
// and no NaN or infinity can reach results.json.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <limits>
#include <string>

#include "sim/cost/iteration_plan.h"
#include "sim/cost/memory_fit.h"
#include "sim/cost/resource_estimate.h"
#include "sim/engine/simulation.h"
#include "sim/model/model_zoo.h"
#include "sim/results/result_json.h"
#include "sim/input/scenario_loader.h"

namespace ddpsim {
namespace {

Scenario scenario(const std::string& text, const std::vector<std::string>& overrides = {}) {
  return parse_scenario_text(text, "guards.yaml", overrides);
}

IterationPlan plan_of(const Scenario& s) {
  Model model;
  std::string error;
  EXPECT_TRUE(build_model(s.model, &model, &error)) << error;
  return build_iteration_plan(s, model);
}

// Every number of a result, as results.json would carry it (throws on a non-finite one).
void expect_all_finite(const SimulationResult& r) {
  nlohmann::json j;
  ASSERT_NO_THROW(j = result_to_json(r));
  std::function<void(const nlohmann::json&)> walk = [&](const nlohmann::json& v) {
    if (v.is_number()) {
      EXPECT_TRUE(std::isfinite(v.get<double>())) << j.dump();
    }
    if (v.is_structured()) {
      for (const auto& item : v) walk(item);
    }
  };
  walk(j);
}

const char* kOneGpu = R"(
cluster: {gpu: v100-sxm2-16gb, pcie: 16GB/s}
model: {name: resnet50}
training: {batch_per_gpu: 32, iterations: 3, warmup: 1}
)";

TEST(NumericalGuards, OneGpuHasNoCommunicationAndExactlyItsComputeTime) {
  const Scenario s = scenario(kOneGpu);
  const IterationPlan plan = plan_of(s);
  const SimulationResult r = simulate(s);
  expect_all_finite(r);
  EXPECT_FALSE(r.partial);
  EXPECT_EQ(r.gpus, 1);
  EXPECT_EQ(r.comm_time, 0.0);
  EXPECT_EQ(r.breakdown.exposed_comm, 0.0);
  EXPECT_EQ(r.comm_share, 0.0);
  EXPECT_EQ(r.exposed_comm_share, 0.0);
  EXPECT_EQ(r.bytes_sent, 0.0);
  EXPECT_EQ(r.bytes_received, 0.0);
  const double step = plan.compute.step_time(1);
  EXPECT_NEAR(r.iteration_time, step, 1e-12 * step);
  EXPECT_NEAR(r.samples_per_second, 32 / step, 1e-9 * 32 / step);
  EXPECT_DOUBLE_EQ(r.scaling_efficiency, 1.0);
  EXPECT_EQ(r.bottleneck, "compute-bound");
}

// An MLP of one 1x1 linear layer: 2 parameters, one bucket of 8 bytes.
const char* kTinyMlp = R"(
cluster:
  nodes: 2
  gpus_per_node: 1
  gpu: v100-sxm2-16gb
  pcie: 16GB/s
  nic: {count: 1, bandwidth: 100Gbps, latency: 0us}
model: {name: mlp, layers: [1, 1]}
training: {batch_per_gpu: 1, iterations: 3, warmup: 1}
sync: {latency_model: alpha}
)";

TEST(NumericalGuards, OneByOneMlpGivesFiniteNumbersAndOneEightByteBucket) {
  const Scenario s = scenario(kTinyMlp);
  const IterationPlan plan = plan_of(s);
  ASSERT_EQ(plan.buckets.size(), 1u);
  EXPECT_EQ(plan.buckets[0].bytes, 8.0);
  EXPECT_GT(plan.compute.forward, 0.0);
  const SimulationResult r = simulate(s);
  expect_all_finite(r);
  EXPECT_GT(r.iteration_time, 0.0);
  EXPECT_GT(r.samples_per_second, 0.0);
  ASSERT_EQ(r.buckets.size(), 1u);
  // Zero-latency NIC under the alpha latency model, two ranks: the ring moves 2(p-1)/p * 8 B =
  // 8 B over 12.5 GB/s.
  EXPECT_NEAR(r.buckets[0].comm_time, 8.0 / 12.5e9, 1e-6 * 8.0 / 12.5e9);
  EXPECT_GT(r.scaling_efficiency, 0.0);
  EXPECT_LE(r.scaling_efficiency, 1.0 + 1e-12);
}

TEST(NumericalGuards, ZeroLatencyLinksGiveThePureBandwidthRingTime) {
  const Scenario s = scenario(R"(
cluster:
  nodes: 2
  gpus_per_node: 4
  gpu: a100-sxm-40gb
  intra_node: {kind: nvswitch, bandwidth: 300GB/s, latency: 0}
  pcie: 32GB/s
  nic: {count: 4, bandwidth: 200Gbps, latency: 0}
model: {name: mlp, layers: [1024, 1024]}
training: {batch_per_gpu: 8, iterations: 2, warmup: 1}
)");
  const SimulationResult r = simulate(s);
  expect_all_finite(r);
  ASSERT_EQ(r.buckets.size(), 1u);
  EXPECT_GT(r.buckets[0].comm_time, 0.0);
  EXPECT_GT(r.iteration_time, 0.0);
}

TEST(NumericalGuards, AModelWithoutParametersHasNoBucketAndFiniteCosts) {
  const Scenario s = scenario(kOneGpu, {"cluster.nodes=1"});
  Model empty;
  empty.name = "no-parameters";
  Layer relu;
  relu.name = "relu";
  relu.kind = LayerKind::kActivation;
  relu.fwd_flops = 1000;
  relu.fwd_bytes = 2000;
  relu.activation_elems = 1000;
  empty.layers.push_back(relu);
  const IterationPlan plan = build_iteration_plan(s, empty);
  EXPECT_TRUE(plan.buckets.empty());
  ASSERT_EQ(plan.backward_segments.size(), 1u);
  EXPECT_DOUBLE_EQ(plan.backward_segments[0], plan.compute.backward);
  EXPECT_EQ(plan.gradient_bytes, 0.0);
  EXPECT_TRUE(std::isfinite(plan.compute.step_time(1)));
  EXPECT_GT(plan.compute.step_time(1), 0.0);
  const MemoryReport memory = memory_report(s, empty);
  EXPECT_TRUE(std::isfinite(memory.total));
  EXPECT_EQ(memory.weights, 0.0);
  const ResourceEstimate cost = estimate_resources(s, plan);
  EXPECT_EQ(cost.messages_per_step, 0.0);
  EXPECT_TRUE(std::isfinite(cost.wall_seconds));
}

TEST(NumericalGuards, NoNaNOrInfinityReachesResultsJson) {
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity()}) {
    SimulationResult r;
    r.iteration_time = bad;
    EXPECT_THROW(result_to_json(r), std::runtime_error);
    r = SimulationResult{};
    r.breakdown.exposed_comm = bad;
    EXPECT_THROW(result_to_json(r), std::runtime_error);
    r = SimulationResult{};
    r.bytes_per_link_class[2] = bad;
    EXPECT_THROW(result_to_json(r), std::runtime_error);
  }
  EXPECT_NO_THROW(result_to_json(SimulationResult{}));
}

}  // namespace
}  // namespace ddpsim
