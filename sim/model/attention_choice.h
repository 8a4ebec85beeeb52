// model.attention applied to a built model: every attention core re-costed as eager (the
// heads x q x kv probabilities written, read and kept for backward) or fused (sdpa / flash:
// neither written nor kept). FLOPs do not change; bytes moved and saved activations do
// (layer_builders.h, attention_core).
#pragma once

#include <optional>

#include "sim/model/layer.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

// The implementation the model's attention layers have as built: nullopt without attention
// layers, sdpa when they are fused (ddpsim does not tell sdpa from flash by cost), else eager.
std::optional<Attention> attention_of(const Model& model);

// Re-costs every attention layer for `attention`. False, with the model unchanged, when one of
// them cannot be re-costed (a model file's, whose shapes ddpsim did not build).
bool set_attention(Model* model, Attention attention);

}  // namespace ddpsim
