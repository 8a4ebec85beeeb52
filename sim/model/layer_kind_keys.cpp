#include "sim/model/layer.h"
#include "sim/text/named_values.h"

namespace ddpsim {
namespace {

const NamedValue<LayerKind> kLayerKinds[] = {
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

const char* layer_kind_key(LayerKind kind) { return name_in(kLayerKinds, kind, "unknown"); }

std::optional<LayerKind> parse_layer_kind_key(const std::string& key) {
  return value_named(kLayerKinds, key);
}

}  // namespace ddpsim
