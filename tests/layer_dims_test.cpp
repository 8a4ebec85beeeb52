// Layer::dims is the shape the calibration harness runs each zoo layer with on the GPU. These
// tests check, for every layer of every zoo model, that the shape is there and that it reproduces
// the layer's own FLOPs and parameter tensors: a shape that disagrees with the cost model would
// time a different layer than the one the simulator predicts.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "sim/model/layer_builders.h"
#include "sim/model/model_zoo.h"

namespace ddpsim {
namespace {

Model build(const std::string& name) {
  ModelSpec spec;
  spec.name = name;
  if (name == "mlp") spec.mlp_layers = {784, 1024, 1024, 10};
  Model m;
  std::string error;
  EXPECT_TRUE(build_model(spec, &m, &error)) << name << ": " << error;
  return m;
}

double d(int64_t v) { return static_cast<double>(v); }

// PyTorch's floor-mode output size, with the per-side padding the harness gives cuDNN.
int64_t out_size(int64_t in, int64_t k, int64_t stride, int64_t pad) {
  return (in + 2 * pad - k) / stride + 1;
}

void check_conv(const Layer& l) {
  ASSERT_EQ(l.dims.size(), 9u);
  const int64_t c = l.dims[0], h = l.dims[1], w = l.dims[2], k = l.dims[3], kh = l.dims[4],
                kw = l.dims[5], s = l.dims[6], pad = l.dims[7], groups = l.dims[8];
  ASSERT_GE(groups, 1);
  EXPECT_EQ(c % groups, 0);
  EXPECT_EQ(k % groups, 0);
  const int64_t ph = kh == kw ? pad : std::min<int64_t>(pad, (kh - 1) / 2);
  const int64_t pw = kh == kw ? pad : std::min<int64_t>(pad, (kw - 1) / 2);
  const int64_t oh = out_size(h, kh, s, ph), ow = out_size(w, kw, s, pw);
  EXPECT_DOUBLE_EQ(l.fwd_flops, 2.0 * d(c / groups * kh * kw) * d(k * oh * ow));
  EXPECT_DOUBLE_EQ(l.activation_elems, d(k * oh * ow));
  ASSERT_FALSE(l.param_tensors.empty());
  EXPECT_EQ(l.param_tensors[0], k * (c / groups) * kh * kw);
}

void check_linear(const Layer& l) {
  ASSERT_EQ(l.dims.size(), 3u);
  EXPECT_DOUBLE_EQ(l.fwd_flops, 2.0 * d(l.dims[0]) * d(l.dims[1]) * d(l.dims[2]));
  EXPECT_DOUBLE_EQ(l.fwd_bytes, d(l.dims[0]) * d(l.dims[1] + l.dims[2]));
  if (!l.param_tensors.empty()) {
    EXPECT_EQ(l.param_tensors[0], l.dims[1] * l.dims[2]);
  }
}

void check_attention(const Layer& l) {
  ASSERT_EQ(l.dims.size(), 5u);
  const double q = d(l.dims[0]), heads = d(l.dims[1]), hd = d(l.dims[2]), kv = d(l.dims[3]);
  const double scores = heads * q * kv;
  const double matmuls = 2 * (2 * q * kv * heads * hd);
  // The rest is scale, mask, softmax and (optionally) dropout on every score.
  const double per_score = (l.fwd_flops - matmuls) / scores;
  const double plain = 2 + zoo::kSoftmaxFlops;
  EXPECT_TRUE(std::abs(per_score - plain) < 1e-9 ||
              std::abs(per_score - plain - zoo::kDropoutFlops) < 1e-9)
      << per_score;
  EXPECT_TRUE(l.dims[4] == 0 || l.dims[4] == 1);
}

void check_pool(const Layer& l) {
  ASSERT_EQ(l.dims.size(), 6u);
  const int64_t c = l.dims[0], h = l.dims[1], w = l.dims[2], k = l.dims[3], s = l.dims[4],
                pad = l.dims[5];
  const int64_t out = c * out_size(h, k, s, pad) * out_size(w, k, s, pad);
  EXPECT_DOUBLE_EQ(l.fwd_bytes, d(c * h * w + out));
  // Max and average pools count one FLOP per window element; the adaptive pool one per input
  // element plus one per output (the same number when kernel = stride and nothing is padded).
  EXPECT_TRUE(l.fwd_flops == d(k * k * out) || l.fwd_flops == d(c * h * w + out)) << l.fwd_flops;
}

void check_layer(const Layer& l) {
  SCOPED_TRACE(l.name);
  for (int64_t v : l.dims) EXPECT_GE(v, 0);
  switch (l.kind) {
    case LayerKind::kConv:
      return check_conv(l);
    case LayerKind::kLinear:
      return check_linear(l);
    case LayerKind::kAttention:
      return check_attention(l);
    case LayerKind::kPool:
      return check_pool(l);
    case LayerKind::kBatchNorm:
      ASSERT_EQ(l.dims.size(), 2u);
      EXPECT_EQ(l.dims[0] % l.dims[1], 0);
      EXPECT_EQ(l.param_tensors, (std::vector<int64_t>{l.dims[1], l.dims[1]}));
      EXPECT_DOUBLE_EQ(l.fwd_flops, zoo::kNormFlops * d(l.dims[0]));
      return;
    case LayerKind::kLayerNorm:
      ASSERT_EQ(l.dims.size(), 2u);
      EXPECT_EQ(l.dims[0] % l.dims[1], 0);
      if (l.param_tensors.size() == 1) {  // RMSNorm (Llama, Mistral): a weight, no bias
        EXPECT_EQ(l.param_tensors, (std::vector<int64_t>{l.dims[1]}));
        EXPECT_DOUBLE_EQ(l.fwd_flops, zoo::kRmsNormFlops * d(l.dims[0]));
        return;
      }
      EXPECT_EQ(l.param_tensors, (std::vector<int64_t>{l.dims[1], l.dims[1]}));
      EXPECT_DOUBLE_EQ(l.fwd_flops, zoo::kNormFlops * d(l.dims[0]));
      return;
    case LayerKind::kEmbedding:
      ASSERT_EQ(l.dims.size(), 3u);
      EXPECT_DOUBLE_EQ(l.fwd_flops, d(l.dims[0]) * d(l.dims[2]));
      if (!l.param_tensors.empty()) {
        EXPECT_EQ(l.param_tensors[0], l.dims[1] * l.dims[2]);
      }
      return;
    case LayerKind::kLoss:
      ASSERT_EQ(l.dims.size(), 2u);
      EXPECT_DOUBLE_EQ(l.fwd_flops,
                       zoo::kSoftmaxFlops * d(l.dims[0]) * d(l.dims[1]) + d(l.dims[0]));
      return;
    default:
      // Element-wise: one element count, and the layer's traffic is a whole number of passes
      // over it (2 read+write, 3 for an add or a product, 5 for rotary embeddings, plus a
      // quarter for a dropout mask).
      ASSERT_EQ(l.dims.size(), 1u);
      ASSERT_GT(l.dims[0], 0);
      const double passes = l.fwd_bytes / d(l.dims[0]);
      EXPECT_TRUE(passes == 2 || passes == 3 || passes == 5 || passes == 2 + zoo::kMaskBytesAsElems)
          << passes;
      return;
  }
}

TEST(LayerDims, EveryZooLayerHasAShapeThatReproducesItsFlopsAndParameters) {
  int checked = 0;
  for (const ZooEntry& entry : model_zoo()) {
    SCOPED_TRACE(entry.key);
    const Model m = build(entry.key);
    for (const Layer& l : m.layers) {
      check_layer(l);
      ++checked;
    }
  }
  EXPECT_GT(checked, 1000);
}

TEST(LayerDims, ResNet50StemIsTheTorchvisionShape) {
  const Model m = build("resnet50");
  ASSERT_GE(m.layers.size(), 4u);
  EXPECT_EQ(m.layers[0].dims, (std::vector<int64_t>{3, 224, 224, 64, 7, 7, 2, 3, 1}));
  const auto pool = std::find_if(m.layers.begin(), m.layers.end(),
                                 [](const Layer& l) { return l.kind == LayerKind::kPool; });
  ASSERT_NE(pool, m.layers.end());
  EXPECT_EQ(pool->dims, (std::vector<int64_t>{64, 112, 112, 3, 2, 1}));
  // avgpool 7x7 -> 1x1 runs as a 7x7 pool of stride 7.
  const auto avg = std::find_if(m.layers.rbegin(), m.layers.rend(),
                                [](const Layer& l) { return l.kind == LayerKind::kPool; });
  EXPECT_EQ(avg->dims, (std::vector<int64_t>{2048, 7, 7, 7, 7, 0}));
}

TEST(LayerDims, BertAttentionIsUnfusedSelfAttentionOverTheSequence) {
  const Model m = build("bert-large");
  const auto core = std::find_if(m.layers.begin(), m.layers.end(),
                                 [](const Layer& l) { return l.kind == LayerKind::kAttention; });
  ASSERT_NE(core, m.layers.end());
  EXPECT_EQ(core->dims, (std::vector<int64_t>{m.sequence_length, 16, 64, m.sequence_length, 0}));
}

}  // namespace
}  // namespace ddpsim
