// Does one GPU hold the training state? Bytes per GPU, as PyTorch keeps them:
//   weights      4 B/param: the parameters are fp32 in every precision. Mixed precision here is
//                PyTorch AMP (autocast), which keeps the model in fp32, so there is no separate
//                fp32 master copy; instead autocast casts each conv/linear weight to fp16/bf16
//                once per forward and backward keeps that copy: +2 B per conv/linear param.
//                (Apex O2-style fp16 model + fp32 master costs the same 6 B/param.)
//   gradients    4 B/param (.grad has the parameter's dtype).
//   optimizer    fp32 state: SGD 0, SGD with momentum 4 (momentum_buffer), Adam 8 (exp_avg,
//                exp_avg_sq) B/param.
//   workspace    DDP's flat bucket buffers, one more fp32 copy of the gradients when more than
//                one GPU all-reduces (gradient_as_bucket_view=False, the default; parameter
//                servers have none) + the input batches the loader keeps on the GPU (real data
//                only) + a fixed framework reserve.
//   activations  what each layer of the zoo saves for backward, per sample, at the activation
//                dtype (2 B under fp16/bf16 autocast, else 4), times the micro-batch.
// With sync.sharding (ZeRO / FSDP) the states follow ZeRO's accounting instead (memory_fit.cpp,
// docs/sharding.md): weights and gradients at the compute dtype, the fp32 master copy inside the
// optimizer state (Adam in mixed precision: 2 + 2 + 12 bytes per parameter), divided by the
// shard group as each stage divides them; the workspace holds the gathered units in flight.
// training.activation_checkpointing keeps only each block's input plus one block's activations
// while it is recomputed.
// Transient peaks (one layer's input gradient, cuDNN algorithm workspaces beyond the reserve)
// are not counted.
#pragma once

#include <string>
#include <vector>

#include "sim/model/layer.h"
#include "sim/results/result.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

// CUDA context, cuDNN/cuBLAS workspaces and caching-allocator slack, per GPU.
constexpr double kFrameworkReserveBytes = 1.0 * 1024 * 1024 * 1024;

double optimizer_state_bytes_per_param(Optimizer optimizer);

// Parameters autocast keeps a half-precision copy of (conv and linear layers).
int64_t autocast_cast_params(const Model& model);

// The full report: components, total, whether it fits, and the largest per-GPU micro-batch that
// fits (0 when not even one sample does). total - capacity is by how much it does not fit.
MemoryReport memory_report(const Scenario& scenario, const Model& model);

// Activation elements one sample keeps for backward (all layers', or with checkpointing each
// block's input + the root's layers + the largest block's, recomputed).
double activation_elems_per_sample(const Model& model, bool checkpointing);
// zero3 / fsdp-hybrid: parameters gathered at once at most (the root unit and, with
// limit_all_gathers, the largest two consecutive units, else every unit); 0 otherwise.
double gathered_in_flight_params(const Scenario& scenario, const Model& model);

// The memory of every sharding, without and with activation checkpointing, for "which sharding
// makes it fit" (hybrid only on several nodes; sharding only on several GPUs).
struct ShardingFit {
  Sharding sharding = Sharding::kNone;
  bool checkpointing = false;
  double total = 0;
  bool fits = false;
  int max_batch = 0;
};
std::vector<ShardingFit> sharding_fits(const Scenario& scenario, const Model& model);
// The first of sharding_fits that fits at the scenario's batch and differs from the scenario,
// as "sync.sharding: zero3 + training.activation_checkpointing (largest batch 6)"; "" if none.
std::string fits_with(const Scenario& scenario, const Model& model);

}  // namespace ddpsim
