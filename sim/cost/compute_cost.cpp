#include "sim/cost/compute_cost.h"

#include <algorithm>

namespace ddpsim {
namespace {

bool uses_tensor_cores(LayerKind kind) {
  return kind == LayerKind::kConv || kind == LayerKind::kLinear || kind == LayerKind::kAttention;
}

double roofline(double flops, double bytes, double peak, double bandwidth,
                const ComputeSpec& compute) {
  return std::max(flops / (peak * compute.efficiency),
                  bytes / (bandwidth * compute.memory_efficiency));
}

}  // namespace

double matmul_peak(const GpuSpec& gpu, Precision precision) {
  switch (precision) {
    case Precision::kFp32:
      return gpu.fp32_flops;
    case Precision::kTf32:
      return gpu.tf32_flops > 0 ? gpu.tf32_flops : gpu.fp32_flops;
    case Precision::kFp16:
      return gpu.fp16_flops > 0 ? gpu.fp16_flops : gpu.fp32_flops;
    case Precision::kBf16:
      if (gpu.bf16_flops > 0) return gpu.bf16_flops;
      return gpu.fp16_flops > 0 ? gpu.fp16_flops : gpu.fp32_flops;
  }
  return gpu.fp32_flops;
}

int activation_bytes(Precision precision) {
  return precision == Precision::kFp16 || precision == Precision::kBf16 ? 2 : 4;
}

double optimizer_bytes_per_param(Optimizer optimizer) {
  // fp32: read w, g (+ state), write w (+ state).
  switch (optimizer) {
    case Optimizer::kSgd:
      return 12;
    case Optimizer::kMomentum:
      return 20;
    case Optimizer::kAdam:
      return 28;
  }
  return 20;
}

ComputePlan plan_compute(const Scenario& scenario, const Model& model) {
  const GpuSpec& gpu = scenario.cluster.gpu;
  const double batch = scenario.training.batch_per_gpu;
  const double act = activation_bytes(scenario.training.precision);
  const double weight_bytes = act;  // weights are cast to the compute dtype once per step
  const double tc_peak = matmul_peak(gpu, scenario.training.precision);

  ComputePlan plan;
  plan.layers.reserve(model.layers.size());
  for (const Layer& layer : model.layers) {
    const double peak = uses_tensor_cores(layer.kind) ? tc_peak : gpu.fp32_flops;
    const double weights = static_cast<double>(layer.params()) * weight_bytes;
    LayerTime t;
    t.forward = roofline(layer.fwd_flops * batch, layer.fwd_bytes * batch * act + weights, peak,
                         gpu.hbm_bandwidth, scenario.compute);
    t.backward = roofline(layer.fwd_flops * batch * layer.bwd_flops_factor,
                          2 * layer.fwd_bytes * batch * act + 2 * weights, peak,
                          gpu.hbm_bandwidth, scenario.compute);
    plan.forward += t.forward;
    plan.backward += t.backward;
    plan.layers.push_back(t);
  }
  plan.optimizer = static_cast<double>(model.params()) *
                   optimizer_bytes_per_param(scenario.training.optimizer) /
                   (gpu.hbm_bandwidth * scenario.compute.memory_efficiency);

  if (scenario.compute.mode == ComputeMode::kMeasured && scenario.compute.step_time > 0) {
    const double modelled = plan.step_time(scenario.training.gradient_accumulation);
    if (modelled > 0) {
      plan.scale = scenario.compute.step_time / modelled;
      for (LayerTime& t : plan.layers) {
        t.forward *= plan.scale;
        t.backward *= plan.scale;
      }
      plan.forward *= plan.scale;
      plan.backward *= plan.scale;
      plan.optimizer *= plan.scale;
    }
  }
  return plan;
}

}  // namespace ddpsim
