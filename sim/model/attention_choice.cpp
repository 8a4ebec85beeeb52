#include "sim/model/attention_choice.h"

#include "sim/model/layer_builders.h"

namespace ddpsim {

std::optional<Attention> attention_of(const Model& model) {
  std::optional<Attention> found;
  for (const Layer& l : model.layers) {
    if (l.kind != LayerKind::kAttention) continue;
    const bool fused = l.dims.size() >= 5 && l.dims[4] != 0;
    if (fused) return Attention::kSdpa;
    found = Attention::kEager;
  }
  return found;
}

bool set_attention(Model* model, Attention attention) {
  for (const Layer& l : model->layers)
    if (l.kind == LayerKind::kAttention && !(l.attention_kv_width > 0 && l.dims.size() >= 5))
      return false;
  for (Layer& l : model->layers)
    if (l.kind == LayerKind::kAttention)
      zoo::set_attention_fused(l, attention != Attention::kEager);
  return true;
}

}  // namespace ddpsim
