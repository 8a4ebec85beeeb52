#include "sim/cost/compute_cost.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "sim/measurements/calibration_profile.h"

namespace ddpsim {
namespace {

bool is_gemm(LayerKind kind) { return kind == LayerKind::kConv || kind == LayerKind::kLinear; }

bool uses_tensor_cores(LayerKind kind) { return is_gemm(kind) || kind == LayerKind::kAttention; }

// The device a layer runs on: peaks and the fractions of them achieved. gemm_peak serves conv
// and linear layers, tensor_peak attention's matmuls; they differ only under fp8, where
// Transformer Engine runs its Linear GEMMs (forward, dgrad and wgrad) in fp8 and attention in
// bf16 unless fp8 attention is asked for (TE's DotProductAttention, fp8_dpa defaults to False).
struct Device {
  double gemm_peak = 0, tensor_peak = 0, scalar_peak = 0, bandwidth = 0;
  double efficiency = 1, memory_efficiency = 1;
};

double layer_peak(LayerKind kind, const Device& d) {
  if (is_gemm(kind)) return d.gemm_peak;
  return uses_tensor_cores(kind) ? d.tensor_peak : d.scalar_peak;
}

// Under fp8 every other layer runs as in bf16 mixed precision.
Precision non_gemm_precision(Precision p) { return p == Precision::kFp8 ? Precision::kBf16 : p; }

double roofline(double flops, double bytes, double peak, const Device& d) {
  return std::max(flops / (peak * d.efficiency), bytes / (d.bandwidth * d.memory_efficiency));
}

LayerTime roofline_layer(const Layer& layer, double batch, double act, const Device& d) {
  const double peak = layer_peak(layer.kind, d);
  const double weights = static_cast<double>(layer.params()) * act;  // cast once per step
  LayerTime t;
  t.forward = roofline(layer.fwd_flops * batch, layer.fwd_bytes * batch * act + weights, peak, d);
  t.backward = roofline(layer.fwd_flops * batch * layer.bwd_flops_factor,
                        2 * layer.fwd_bytes * batch * act + 2 * weights, peak, d);
  return t;
}

// compute.mode profile: measured layers as measured; other layers (or other models) by the
// roofline at the profile's measured ceilings and per-kind efficiency; the optimizer as measured
// when the profile timed it for this model, else streamed at the measured HBM bandwidth.
void apply_profile(const Scenario& scenario, const Model& model, ComputePlan* plan) {
  if (!scenario.compute.measured_profile)
    throw std::logic_error("compute.mode profile without the profile the loader reads");
  const CalibrationProfile& profile = *scenario.compute.measured_profile;
  const GpuSpec& gpu = scenario.cluster.gpu;
  const Precision precision = scenario.training.precision;
  const double batch = scenario.training.batch_per_gpu;
  // A profile measures GEMMs up to bf16: fp8 GEMMs take the GPU's datasheet fp8 rate.
  auto measured_or_datasheet = [&](Precision p) {
    const double measured = profile.ceilings.gemm_flops(p);
    return measured > 0 ? measured : matmul_peak(gpu, p);
  };
  Device base;
  base.gemm_peak = measured_or_datasheet(precision);
  base.tensor_peak = measured_or_datasheet(non_gemm_precision(precision));
  base.scalar_peak = profile.ceilings.gemm_flops(Precision::kFp32) > 0
                         ? profile.ceilings.gemm_flops(Precision::kFp32)
                         : gpu.fp32_flops;
  base.bandwidth = profile.ceilings.d2d ? profile.ceilings.d2d->bandwidth : gpu.hbm_bandwidth;
  plan->forward = plan->backward = 0;
  for (size_t l = 0; l < model.layers.size(); ++l) {
    const Layer& layer = model.layers[l];
    LayerTime& t = plan->layers[l];
    if (auto measured =
            layer_time(profile, model.name, precision, layer.name, static_cast<int>(batch))) {
      t.forward = measured->fwd;
      t.backward = measured->bwd;
    } else {
      Device d = base;
      d.efficiency = scenario.compute.efficiency;
      d.memory_efficiency = scenario.compute.memory_efficiency;
      // The profile's efficiency is the fraction of the (ceiling) roofline time achieved.
      if (auto e = roofline_efficiency(profile, layer.kind))
        d.efficiency = d.memory_efficiency = *e;
      t = roofline_layer(layer, batch, activation_bytes(precision), d);
    }
    plan->forward += t.forward;
    plan->backward += t.backward;
  }
  std::optional<double> optimizer;
  for (const ModelRun& run : profile.runs)
    if (run.model == model.name)
      for (const OptimizerTiming& o : run.optimizer)
        if (o.optimizer == scenario.training.optimizer && o.params == model.params())
          optimizer = o.time.median;
  if (profile.ceilings.h2d) plan->h2d_bandwidth = profile.ceilings.h2d->bandwidth;
  if (profile.overlap) {
    plan->overlap_slowdown = profile.overlap->slowdown();
    plan->overlap_source = "measured in the profile";
  }
  plan->optimizer =
      optimizer.value_or(static_cast<double>(model.params()) *
                         optimizer_bytes_per_param(scenario.training.optimizer) / base.bandwidth);
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
    case Precision::kFp8:
      // The loader refuses fp8 on a GPU without it; a hand-built GpuSpec falls back to bf16.
      return gpu.fp8_flops > 0 ? gpu.fp8_flops : matmul_peak(gpu, Precision::kBf16);
  }
  return gpu.fp32_flops;
}

int activation_bytes(Precision precision) {
  switch (precision) {
    case Precision::kFp16:
    case Precision::kBf16:
    case Precision::kFp8:  // TE keeps activations in bf16 between layers (and saves them so)
      return 2;
    case Precision::kFp32:
    case Precision::kTf32:
      return 4;
  }
  return 4;
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
  Device device;
  device.gemm_peak = matmul_peak(gpu, scenario.training.precision);
  device.tensor_peak = matmul_peak(gpu, non_gemm_precision(scenario.training.precision));
  device.scalar_peak = gpu.fp32_flops;
  device.bandwidth = gpu.hbm_bandwidth;
  device.efficiency = scenario.compute.efficiency;
  device.memory_efficiency = scenario.compute.memory_efficiency;

  ComputePlan plan;
  plan.layers.reserve(model.layers.size());
  for (const Layer& layer : model.layers) {
    const LayerTime t = roofline_layer(layer, batch, act, device);
    plan.forward += t.forward;
    plan.backward += t.backward;
    plan.layers.push_back(t);
  }
  plan.optimizer = static_cast<double>(model.params()) *
                   optimizer_bytes_per_param(scenario.training.optimizer) /
                   (gpu.hbm_bandwidth * scenario.compute.memory_efficiency);
  if (scenario.compute.mode == ComputeMode::kProfile) apply_profile(scenario, model, &plan);

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
  // Uncertainty draws: a measured time from another device, the slowest GPU of the job. A
  // data-parallel framework's per-step overhead applies only where there is a peer to sync with.
  const double framework =
      scenario.cluster.total_gpus() > 1 ? scenario.compute.framework_overhead : 1.0;
  const double factor = scenario.compute.time_scale * scenario.compute.slowest_gpu * framework;
  if (factor != 1.0) {
    for (LayerTime& t : plan.layers) {
      t.forward *= factor;
      t.backward *= factor;
    }
    plan.forward *= factor;
    plan.backward *= factor;
    plan.optimizer *= factor;
  }
  if (scenario.compute.overlap_slowdown > 0) {
    plan.overlap_slowdown = scenario.compute.overlap_slowdown;
    plan.overlap_source = "compute.overlap_slowdown";
  }
  return plan;
}

}  // namespace ddpsim
