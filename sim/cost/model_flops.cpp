#include "sim/cost/model_flops.h"

#include <algorithm>

#include "sim/cost/shard_units.h"

namespace ddpsim {
namespace {

// Weights one token multiplies in this layer: its trainable parameters, or an output head's
// tied weight (a linear layer without tensors of its own: in x out from dims).
double token_params(const Layer& l) {
  if (l.kind == LayerKind::kEmbedding) return 0;
  if (l.kind == LayerKind::kLinear && l.param_tensors.empty() && l.dims.size() >= 3)
    return static_cast<double>(l.dims[1]) * static_cast<double>(l.dims[2]);
  return static_cast<double>(l.params());
}

// 12 H Q T x q_tokens: the attention term of one sample in one attention layer.
double attention_per_sample(const Layer& l) {
  if (l.kind != LayerKind::kAttention || l.dims.size() < 4) return 0;
  return 12.0 * static_cast<double>(l.dims[1]) * static_cast<double>(l.dims[2]) *
         static_cast<double>(l.dims[3]) * static_cast<double>(l.dims[0]);
}

}  // namespace

TransformerFlops transformer_flops(const Model& model) {
  TransformerFlops f;
  double longest_query = 0;
  for (const Layer& l : model.layers)
    if (l.kind == LayerKind::kAttention && l.dims.size() >= 4) {
      f.transformer = true;
      longest_query = std::max(longest_query, static_cast<double>(l.dims[0]));
    }
  if (!f.transformer) return f;
  f.tokens_per_sample = model.sequence_length > 0 ? model.sequence_length : longest_query;
  if (!(f.tokens_per_sample > 0)) return TransformerFlops{};
  std::vector<bool> recomputed(model.layers.size(), false);
  for (const ShardUnit& u : shard_units(model, 0))
    if (!u.root)
      for (int l : u.layers) recomputed[l] = true;
  double attention = 0, recomputed_attention = 0;
  for (size_t i = 0; i < model.layers.size(); ++i) {
    const Layer& l = model.layers[i];
    f.params += token_params(l);
    attention += attention_per_sample(l);
    if (recomputed[i]) {
      f.recomputed_params += token_params(l);
      recomputed_attention += attention_per_sample(l);
    }
  }
  f.attention_per_token = attention / f.tokens_per_sample;
  f.recomputed_attention_per_token = recomputed_attention / f.tokens_per_sample;
  return f;
}

}  // namespace ddpsim
