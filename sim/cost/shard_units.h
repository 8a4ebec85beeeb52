// FSDP units: the groups of consecutive layers whose parameters are gathered, freed and
// reduce-scattered together (PyTorch FSDP's auto_wrap_policy), and the sharded memory model.
// Pure: no SimGrid.
//
// Units. wrap per-layer (min_params 0): a layer belongs to the repeated block its name names,
// the name up to and including its first numeric component ("model.layers.3.mlp.up_proj" ->
// "model.layers.3", "layer1.0.conv1" -> "layer1.0"), as transformer_auto_wrap_policy wraps each
// decoder layer; layers of no block (embeddings, final norm, head, loss) stay in the root unit.
// wrap min_params > 0: consecutive layers are grouped until a group holds min_params parameters
// (size_based_auto_wrap_policy); what is left at the end joins the root. The root unit holds the
// rest and FSDP never frees it between forward and backward.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/layer.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct ShardUnit {
  std::string name;           // the block ("model.layers.3"), "root" for the root unit
  std::vector<int> layers;    // indices into model.layers, ascending (forward order)
  int64_t params = 0;         // trainable parameters
  int64_t frozen_params = 0;  // requires_grad=False parameters (gathered, never reduced)
  int tensors = 0;            // trainable parameter tensors
  bool root = false;
};

// units[0] is the root (possibly empty of layers); the others follow forward order.
std::vector<ShardUnit> shard_units(const Model& model, int64_t wrap_min_params);

// The block a layer name belongs to ("" for none): the name up to its first numeric component.
std::string block_of(const std::string& layer_name);

// Elements one sample feeds a layer (its input), from its kind and dims (layer.h): what
// activation checkpointing keeps of a unit (the input of its first layer).
double layer_input_elems(const Layer& layer);

// GPUs one parameter is divided over: every GPU (zero1-3), the GPUs of a node (fsdp-hybrid),
// 1 without sharding.
int shard_group_size(const Scenario& scenario);

// Bytes per parameter element on the wire and in the gathered copy: the compute dtype (2 under
// fp16/bf16 mixed precision, FSDP's MixedPrecision(param_dtype) and ZeRO's fp16 weights).
int gathered_param_bytes(Precision precision);

}  // namespace ddpsim
