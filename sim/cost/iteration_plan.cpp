#include "sim/cost/iteration_plan.h"

namespace ddpsim {

std::vector<double> backward_segments(const std::vector<LayerTime>& layers,
                                      const std::vector<Bucket>& buckets) {
  std::vector<double> segments;
  segments.reserve(buckets.size() + 1);
  int next = static_cast<int>(layers.size()) - 1;  // next layer whose backward has not run
  for (const Bucket& bucket : buckets) {
    double t = 0;
    for (; next >= bucket.ready_layer; --next) t += layers[next].backward;
    segments.push_back(t);
  }
  double tail = 0;
  for (; next >= 0; --next) tail += layers[next].backward;
  segments.push_back(tail);
  return segments;
}

bool communicates_per_tensor(const Scenario& s) {
  const bool fusion = s.sync.fusion.enabled && s.sync.strategy != SyncStrategy::kParameterServer;
  return s.sync.bucket_cap <= 0 || fusion || s.sync.schedule == CommSchedule::kPriority;
}

IterationPlan build_iteration_plan(const Scenario& scenario, const Model& model, int shard_group) {
  IterationPlan plan;
  plan.compute = plan_compute(scenario, model);
  if (scenario.training.activation_checkpointing) {
    for (const ShardUnit& u : shard_units(model, 0)) {
      if (u.root) continue;
      for (int l : u.layers) {
        plan.compute.layers[l].backward += plan.compute.layers[l].forward;
        plan.compute.backward += plan.compute.layers[l].forward;
      }
    }
  }
  if (scenario.sync.sharding.strategy != Sharding::kNone) {
    plan.units = shard_units(model, scenario.sync.sharding.wrap_min_params);
    plan.unit_of_layer.assign(model.layers.size(), 0);
    for (size_t u = 0; u < plan.units.size(); ++u)
      for (int l : plan.units[u].layers) plan.unit_of_layer[l] = static_cast<int>(u);
    plan.compute.optimizer /= shard_group > 0 ? shard_group : shard_group_size(scenario);
  }
  plan.per_tensor = communicates_per_tensor(scenario);
  plan.buckets =
      assign_buckets(gradient_tensors(model, scenario.sync.gradient_bytes),
                     scenario.sync.first_bucket, plan.per_tensor ? 0.0 : scenario.sync.bucket_cap);
  plan.backward_segments = backward_segments(plan.compute.layers, plan.buckets);
  for (const Bucket& b : plan.buckets) plan.gradient_bytes += b.bytes;
  plan.layer_buckets.assign(model.layers.size(), {});
  for (size_t b = 0; b < plan.buckets.size(); ++b)
    for (const GradientTensor& t : plan.buckets[b].tensors) {
      std::vector<int>& of = plan.layer_buckets[t.layer];
      if (of.empty() || of.back() != static_cast<int>(b)) of.push_back(static_cast<int>(b));
    }
  plan.optimizer_share.assign(model.layers.size(), 0.0);
  const double params = model.params();
  for (size_t l = 0; l < model.layers.size(); ++l)
    plan.optimizer_share[l] = params > 0 ? model.layers[l].params() / params : 0.0;
  return plan;
}

}  // namespace ddpsim
