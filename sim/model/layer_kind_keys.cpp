#include "sim/model/layer.h"
#include "sim/util/key_table.h"

namespace ddpsim {
namespace {

const KeyRow<LayerKind> kLayerKinds[] = {
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

const char* layer_kind_key(LayerKind kind) { return key_of(kLayerKinds, kind); }

std::optional<LayerKind> parse_layer_kind_key(const std::string& key) {
  return value_of(kLayerKinds, key);
}

}  // namespace ddpsim
