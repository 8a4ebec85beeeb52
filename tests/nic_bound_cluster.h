// The NIC-bound test cluster shared by the whole-iteration tests: 8 single-GPU V100 nodes, so
// every ring edge crosses one 25 Gbps NIC (5 us), with ResNet-50 at batch 32, fp32, 25 MiB
// buckets overlapping backward. Its ring all-reduce, charged with the plain alpha latency
// model, has the closed form ring_time(8, S, 25e9/8, 5e-6).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/cost/iteration_plan.h"
#include "sim/model/model_zoo.h"
#include "sim/input/scenario_loader.h"

namespace ddpsim::testing {

inline const char* kNicBound = R"(
name: nic-bound
cluster:
  nodes: 8
  gpus_per_node: 1
  gpu: v100-sxm2-16gb
  intra_node: {kind: nvswitch, bandwidth: 150GB/s, latency: 1us}
  pcie: 16GB/s
  nic: {count: 1, bandwidth: 25Gbps, latency: 5us}
  fabric: {kind: leaf-spine, nodes_per_leaf: 16, oversubscription: 1}
model: {name: resnet50}
training: {batch_per_gpu: 32, precision: fp32, optimizer: momentum, iterations: 3, warmup: 1}
sync: {strategy: allreduce, algorithm: ring, bucket_cap: 25MiB, first_bucket: 1MiB, overlap: true,
       latency_model: alpha}
compute: {mode: roofline, efficiency: 0.5}
)";

inline Scenario nic_bound(const std::vector<std::string>& overrides = {}) {
  return parse_scenario_text(kNicBound, "test.yaml", overrides);
}

inline Model model_of(const Scenario& s) {
  Model m;
  std::string error;
  EXPECT_TRUE(build_model(s.model, &m, &error)) << error;
  return m;
}

inline IterationPlan plan_of(const Scenario& s) { return build_iteration_plan(s, model_of(s)); }

inline double ring_time(int p, double bytes, double bandwidth, double alpha) {
  return 2.0 * (p - 1) / p * bytes / bandwidth + 2.0 * (p - 1) * alpha;
}

}  // namespace ddpsim::testing
