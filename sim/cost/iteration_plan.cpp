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

IterationPlan build_iteration_plan(const Scenario& scenario, const Model& model) {
  IterationPlan plan;
  plan.compute = plan_compute(scenario, model);
  plan.buckets = assign_buckets(gradient_tensors(model, scenario.sync.gradient_bytes),
                                scenario.sync.first_bucket, scenario.sync.bucket_cap);
  plan.backward_segments = backward_segments(plan.compute.layers, plan.buckets);
  for (const Bucket& b : plan.buckets) plan.gradient_bytes += b.bytes;
  return plan;
}

}  // namespace ddpsim
