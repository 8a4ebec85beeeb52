// Per-layer compute time on one GPU for one micro-batch.
//
// roofline: a layer takes max(FLOPs / (peak x efficiency), bytes / (HBM bandwidth x
//   memory_efficiency)), where peak is the GPU's tensor-core rate at the training precision for
//   matmul layers (conv, linear, attention) and the fp32 rate for the rest (fp8: conv and linear
//   at the fp8 rate, attention at the bf16 rate, as Transformer Engine runs them); bytes are
//   activations read and written (at the activation dtype, bf16 under fp8) plus the layer's
//   weights. Backward = bwd_flops_factor x the FLOPs and twice
//   the activation traffic, plus writing the weight gradients.
// measured: the roofline times are scaled by one factor so that a single-GPU optimizer step
//   (gradient_accumulation x (forward + backward) + optimizer) equals compute.step_time.
// The optimizer update is memory-bound: it streams weights, gradients and optimizer state.
// overlap_slowdown: compute.overlap_slowdown when given, else the profile's measured GEMM
//   slowdown next to an all-reduce (profile mode), else 1; the engine applies it while a GPU
//   communicates (sim/engine/compute_interference.h).
#pragma once

#include <string>
#include <vector>

#include "sim/model/layer.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct LayerTime {
  double forward = 0;  // seconds, one micro-batch of batch_per_gpu samples
  double backward = 0;
};

struct ComputePlan {
  std::vector<LayerTime> layers;
  double forward = 0;  // sum over layers
  double backward = 0;
  double optimizer = 0;                 // one update of all parameters
  double scale = 1;                     // measured mode: factor applied to the roofline times
  double overlap_slowdown = 1;          // compute slowdown while the GPU communicates (>= 1)
  std::string overlap_source = "none";  // where overlap_slowdown came from, for the notes
  // Profile mode: the measured pinned host-to-device copy bandwidth, which caps the input
  // pipeline's copy to the GPU (0 = only the PCIe link limits it).
  double h2d_bandwidth = 0;

  // One optimizer step on one GPU with no communication and no data wait.
  double step_time(int gradient_accumulation) const {
    return gradient_accumulation * (forward + backward) + optimizer;
  }
};

// Peak FLOP/s of `gpu` for matmul layers at `precision` (falls back: fp8->bf16, bf16->fp16,
// tf32->fp32).
double matmul_peak(const GpuSpec& gpu, Precision precision);
int activation_bytes(Precision precision);
// Bytes read+written per parameter by one optimizer update (fp32 master weights).
double optimizer_bytes_per_param(Optimizer optimizer);

ComputePlan plan_compute(const Scenario& scenario, const Model& model);

}  // namespace ddpsim
