// torchvision.models.vit_b_16: 16x16 patches of a 224x224 image (196 tokens) plus a class token,
// 12 pre-norm encoder blocks of width 768, 12 heads, MLP 3072 with GELU.
//
// torchvision calls nn.MultiheadAttention with need_weights=False, which dispatches to
// scaled_dot_product_attention: the attention core is one fused kernel. Its dropout and
// attention_dropout are 0.0, so nn.Dropout returns its input untouched and no dropout layer
// appears here.
//
// Parameter order: model.parameters() yields class_token before conv_proj (the root module's own
// parameter comes first); layers here follow the forward pass, where the class token is
// concatenated after the patch projection. The two tensors are the first to be computed and
// the last gradients in backward either way.
#include <string>

#include "sim/model/architectures.h"
#include "sim/model/layer_builders.h"

namespace ddpsim::zoo {

std::vector<Layer> vit_b16() {
  constexpr int64_t kDim = 768, kLayers = 12, kHeads = 12, kMlp = 3072, kPatch = 16;
  Layers L;
  const Image patches = conv2d(L, "conv_proj", Image{3, 224, 224}, kDim, square(kPatch, kPatch),
                               true);                // 768 x 14 x 14
  const int64_t tokens = patches.h * patches.w + 1;  // 197 with the class token
  const int64_t n = tokens * kDim;
  concat(L, "class_token", n, {kDim}, false);
  add_parameter(L, "encoder.pos_embedding", n, tokens * kDim);
  for (int64_t i = 0; i < kLayers; ++i) {
    const std::string p = "encoder.layers.encoder_layer_" + std::to_string(i) + ".";
    layernorm(L, p + "ln_1", tokens, kDim);
    linear(L, p + "self_attention.in_proj", tokens, kDim, 3 * kDim, true);
    attention_core(L, p + "self_attention.core", tokens, tokens, kDim, kHeads, false, true);
    linear(L, p + "self_attention.out_proj", tokens, kDim, kDim, true, false, false);
    add(L, p + "residual1", n, true);
    layernorm(L, p + "ln_2", tokens, kDim);
    linear(L, p + "mlp.0", tokens, kDim, kMlp, true);
    gelu(L, p + "mlp.1", tokens * kMlp);
    linear(L, p + "mlp.3", tokens, kMlp, kDim, true, false, false);
    add(L, p + "residual2", n, true);
  }
  layernorm(L, "encoder.ln", tokens, kDim);
  linear(L, "heads.head", 1, kDim, 1000, true);  // on the class token only
  cross_entropy(L, "loss", 1, 1000);
  return L;
}

// Hugging Face's ViT has the same blocks under other names (query/key/value as three linears,
// layernorm_before/after), cls_token and position_embeddings registered on the embeddings
// (parameters() lists them before the patch projection), and attention as SDPA.
std::vector<Layer> hf_vit(const VitConfig& c, const std::string& prefix) {
  Layers L;
  const int64_t d = c.hidden;
  const std::string e = prefix + "embeddings.";
  const Image patches =
      conv2d(L, e + "patch_embeddings.projection", Image{c.channels, c.image, c.image}, d,
             square(static_cast<int>(c.patch), static_cast<int>(c.patch)), true);
  const int64_t tokens = patches.h * patches.w + 1;
  const int64_t n = tokens * d;
  concat(L, e + "cls_token", n, {d}, false);
  add_parameter(L, e + "position_embeddings", n, tokens * d);
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = prefix + "encoder.layer." + std::to_string(i) + ".";
    layernorm(L, p + "layernorm_before", tokens, d);
    linear(L, p + "attention.attention.query", tokens, d, d, c.qkv_bias);
    linear(L, p + "attention.attention.key", tokens, d, d, c.qkv_bias);
    linear(L, p + "attention.attention.value", tokens, d, d, c.qkv_bias);
    attention_core(L, p + "attention.attention.core", tokens, tokens, d, c.heads, false, true);
    linear(L, p + "attention.output.dense", tokens, d, d, true, false, false);
    add(L, p + "residual1", n, true);
    layernorm(L, p + "layernorm_after", tokens, d);
    linear(L, p + "intermediate.dense", tokens, d, c.intermediate, true);
    gelu(L, p + "intermediate.intermediate_act_fn", tokens * c.intermediate);
    linear(L, p + "output.dense", tokens, c.intermediate, d, true, false, false);
    add(L, p + "residual2", n, true);
  }
  layernorm(L, prefix + "layernorm", tokens, d);
  if (c.classes > 0) {
    linear(L, "classifier", 1, d, c.classes, true);  // on the [CLS] token
    cross_entropy(L, "loss", 1, c.classes);
  } else {
    linear(L, prefix + "pooler.dense", 1, d, d, true);
    tanh_activation(L, prefix + "pooler.activation", d);
  }
  return L;
}

}  // namespace ddpsim::zoo
