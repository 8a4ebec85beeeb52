// A model is an ordered list of layers as they run in the forward pass. Each layer carries what
// the cost models need: its parameter tensors (DDP buckets whole tensors, never split them), its
// forward FLOPs and memory traffic per sample, and the activation bytes it keeps for backward.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ddpsim {

enum class LayerKind {
  kConv,
  kLinear,
  kBatchNorm,
  kLayerNorm,
  kActivation,
  kPool,
  kEmbedding,
  kAttention,
  kSoftmax,
  kDropout,
  kElementwise,
  kLoss
};

// A layer kind's key in model files, profiles and tables ("conv", "batch_norm", ...).
const char* layer_kind_key(LayerKind kind);
std::optional<LayerKind> parse_layer_kind_key(const std::string& key);

struct Layer {
  std::string name;  // e.g. "layer1.0.conv1", as the reference implementation
  LayerKind kind = LayerKind::kElementwise;
  std::vector<int64_t> param_tensors;  // element count of each parameter tensor, in
                                       // model.parameters() order (weight before bias)
  // Names of param_tensors ("layer1.0.conv1.weight") where the source says them (model files,
  // Hugging Face configs); empty for the zoo's own builders.
  std::vector<std::string> param_names;
  // Parameters that get no gradient (requires_grad=False): they take weight memory but no
  // gradient, optimizer state or bucket space. Element counts, as param_tensors.
  std::vector<int64_t> frozen_tensors;
  double fwd_flops = 0;           // per sample
  double fwd_bytes = 0;           // per sample: activations read + written, in elements
                                  // (multiply by the activation dtype size)
  double activation_elems = 0;    // per sample: elements saved for backward
  double bwd_flops_factor = 2.0;  // backward FLOPs = factor * forward FLOPs
  // Per-sample shape, so the calibration harness can run the layer for real:
  //   conv:       in_c, in_h, in_w, out_c, kernel_h, kernel_w, stride, pad, groups
  //   linear:     rows (tokens per sample, 1 for CNN heads), in_features, out_features
  //   attention:  q_tokens, heads, head_dim, kv_tokens, fused (1 = one flash/SDPA kernel)
  //   embedding:  tokens, vocab rows, dim
  //   pool:       channels, in_h, in_w, kernel, stride, pad (none for an adaptive pool whose
  //               output does not divide its input)
  //   batch norm: elements, channels;  layer norm: elements, normalized size
  //   loss:       tokens, classes
  //   others:     elements per sample
  std::vector<int64_t> dims;
  // attention (zoo and Hugging Face builders): what re-costing it under another implementation
  // needs besides dims (zoo::set_attention_fused): dropout on the probabilities, and the width
  // of the keys and values summed over heads (< heads x head_dim for grouped-query attention).
  // attention_kv_width 0: not known (a model file), the implementation cannot be changed.
  bool attention_dropout = false;
  double attention_kv_width = 0;

  int64_t params() const {  // trainable
    int64_t n = 0;
    for (int64_t t : param_tensors) n += t;
    return n;
  }
  int64_t frozen_params() const {
    int64_t n = 0;
    for (int64_t t : frozen_tensors) n += t;
    return n;
  }
};

struct Model {
  std::string name;                     // zoo key, e.g. "resnet50"
  std::string description;              // e.g. "ResNet-50 (torchvision), 224x224"
  std::string sample_unit = "samples";  // "images", "sequences"
  int sequence_length = 0;              // transformers; 0 otherwise
  std::vector<Layer> layers;
  // The trainable parameter tensors in the order backward finishes their gradients, as indices
  // into all layers' param_tensors taken in layer order (layer 0's first). DDP rebuilds its
  // buckets in this order after the first iteration. Empty: reverse order, i.e. the last
  // layer's last tensor first (what DDP assumes before it has seen a backward pass).
  std::vector<int> gradient_order;

  int64_t params() const;           // trainable: what gradients, buckets and optimizers carry
  int64_t frozen_params() const;    // requires_grad=False
  double fwd_flops() const;         // per sample
  double activation_elems() const;  // per sample
};

}  // namespace ddpsim
