#include <utility>

#include "sim/model/layer.h"

namespace ddpsim {
namespace {

const std::pair<LayerKind, const char*> kLayerKinds[] = {
    {LayerKind::kConv, "conv"},
    {LayerKind::kLinear, "linear"},
    {LayerKind::kBatchNorm, "batch_norm"},
    {LayerKind::kLayerNorm, "layer_norm"},
    {LayerKind::kActivation, "activation"},
    {LayerKind::kPool, "pool"},
    {LayerKind::kEmbedding, "embedding"},
    {LayerKind::kAttention, "attention"},
    {LayerKind::kSoftmax, "softmax"},
    {LayerKind::kDropout, "dropout"},
    {LayerKind::kElementwise, "elementwise"},
    {LayerKind::kLoss, "loss"},
};

}  // namespace

const char* layer_kind_key(LayerKind kind) {
  for (const auto& [k, name] : kLayerKinds)
    if (k == kind) return name;
  return "unknown";
}

std::optional<LayerKind> parse_layer_kind_key(const std::string& key) {
  for (const auto& [k, name] : kLayerKinds)
    if (key == name) return k;
  return std::nullopt;
}

}  // namespace ddpsim
