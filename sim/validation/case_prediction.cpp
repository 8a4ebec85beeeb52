#include "sim/validation/case_prediction.h"

#include <algorithm>

namespace ddpsim {

double allreduce_bus_bandwidth(double bytes, double seconds, int p) {
  if (seconds <= 0 || p < 2) return 0;
  return bytes / seconds * 2.0 * (p - 1) / p;
}

bool needs_baseline(const std::vector<ValidationCase>& cases) {
  return std::any_of(cases.begin(), cases.end(), [](const ValidationCase& c) {
    return c.metric == ValidationMetric::kScalingEfficiency;
  });
}

Prediction predict_case(const ValidationCase& c, const SimulationResult& result) {
  Prediction p;
  const double scale = unit_scale(c.metric, c.unit);
  if (scale <= 0) {
    p.error = "unit '" + c.unit + "' does not fit metric " + metric_name(c.metric);
    return p;
  }
  double base = 0;  // the prediction in the metric's base unit
  switch (c.metric) {
    case ValidationMetric::kThroughput:
      base = result.samples_per_second * c.per_sample;
      break;
    case ValidationMetric::kIterationTime:
      base = result.iteration_time;
      break;
    case ValidationMetric::kScalingEfficiency:
      if (result.single_gpu_samples_per_second <= 0) {
        p.error = "no single-GPU baseline was run";
        return p;
      }
      base = 100.0 * result.scaling_efficiency;
      break;
    case ValidationMetric::kBusBandwidth:
    case ValidationMetric::kAllReduceTime: {
      // The largest bucket is the all-reduce being measured (the scenario is one big tensor).
      const BucketReport* largest = nullptr;
      for (const BucketReport& b : result.buckets)
        if (!largest || b.bytes > largest->bytes) largest = &b;
      if (!largest || largest->comm_time <= 0 || result.gpus < 2) {
        p.error = std::string("no timed all-reduce in the result (") + metric_name(c.metric) +
                  " needs at least 2 GPUs and a bucket)";
        return p;
      }
      base = c.metric == ValidationMetric::kAllReduceTime
                 ? largest->comm_time
                 : allreduce_bus_bandwidth(largest->bytes, largest->comm_time, result.gpus);
      break;
    }
  }
  p.ok = base > 0;
  p.value = base / scale;
  if (!p.ok) p.error = std::string("the simulation predicts no ") + metric_name(c.metric);
  return p;
}

}  // namespace ddpsim
