// The model zoo against the reference implementations: exact parameter counts (each derived
// below from the architecture, block by block), FLOPs against published multiply-accumulate
// counts and closed forms, layer structure, and the errors for bad model specs.
#include "sim/model/model_zoo.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace ddpsim {
namespace {

Model build(const std::string& name, int sequence_length = 0, std::vector<int> mlp = {}) {
  ModelSpec spec;
  spec.name = name;
  spec.sequence_length = sequence_length;
  spec.mlp_layers = std::move(mlp);
  Model m;
  std::string error;
  EXPECT_TRUE(build_model(spec, &m, &error)) << name << ": " << error;
  return m;
}

std::string build_error(const std::string& name, int sequence_length = 0,
                        std::vector<int> mlp = {}) {
  ModelSpec spec;
  spec.name = name;
  spec.sequence_length = sequence_length;
  spec.mlp_layers = std::move(mlp);
  Model m;
  std::string error;
  EXPECT_FALSE(build_model(spec, &m, &error)) << name << " built but should not";
  return error;
}

const Layer& layer(const Model& m, const std::string& name) {
  for (const Layer& l : m.layers) {
    if (l.name == name) return l;
  }
  ADD_FAILURE() << m.name << " has no layer " << name;
  static const Layer missing;
  return missing;
}

size_t tensor_count(const Model& m) {
  size_t n = 0;
  for (const Layer& l : m.layers) n += l.param_tensors.size();
  return n;
}

// FLOPs of the products only (conv, linear, attention matmuls), excluding layers whose name
// starts with `skip` (e.g. the auxiliary classifier, which torchvision's eval-mode counts omit).
double matmul_flops(const Model& m, const std::string& skip = "") {
  double f = 0;
  for (const Layer& l : m.layers) {
    if (!skip.empty() && l.name.rfind(skip, 0) == 0) continue;
    if (l.kind == LayerKind::kConv || l.kind == LayerKind::kLinear) f += l.fwd_flops;
  }
  return f;
}

int64_t mlp_params(const std::vector<int>& w) {
  int64_t n = 0;
  for (size_t i = 0; i + 1 < w.size(); ++i) n += int64_t{w[i]} * w[i + 1] + w[i + 1];
  return n;
}

// ------------------------------------------------------------------ exact parameter counts

TEST(ModelZooParams, ResNetsMatchTorchvision) {
  // Stem: conv1 7*7*3*64 = 9,408 + bn1 128. Bottleneck(in, w) without downsample:
  // in*w + 9w^2 + 4w^2 convs + 2w + 2w + 8w BN. With downsample: + in*4w + 8w.
  // Stage totals (first block has the downsample):
  //   layer1 (w=64,  in 64 then 256):   75,008 + 70,400*2            = 215,808
  //   layer2 (w=128, in 256 then 512):  379,392 + 280,064*(n2-1)
  //   layer3 (w=256, in 512 then 1024): 1,512,448 + 1,117,184*(n3-1)
  //   layer4 (w=512, in 1024 then 2048): 6,039,552 + 4,462,592*2     = 14,964,736
  // fc 2048*1000 + 1000 = 2,049,000. Stem + layer1 + layer4 + fc = 17,239,080.
  // resnet50  (4, 6):  17,239,080 + 1,219,584 + 7,098,368   = 25,557,032
  // resnet101 (4, 23): 17,239,080 + 1,219,584 + 26,090,496  = 44,549,160
  // resnet152 (8, 36): 17,239,080 + 2,339,840 + 40,613,888  = 60,192,808
  EXPECT_EQ(build("resnet50").params(), 25'557'032);
  EXPECT_EQ(build("resnet101").params(), 44'549'160);
  EXPECT_EQ(build("resnet152").params(), 60'192'808);
}

TEST(ModelZooParams, ResNeXtsMatchTorchvision) {
  // Bottleneck(in, planes p, width w = p * width_per_group / 64 * 32), grouped 3x3 conv with 32
  // groups: in*w + 9w^2/32 + 4pw convs + 2w + 2w + 8p BN; the first block of a stage adds the
  // downsample in*4p + 8p. Stem 9,536 and fc 2,049,000 as in ResNet.
  //   resnext50_32x4d  (w = 2p): stages 205,824 + 1,197,056 + 7,022,592 + 14,544,896
  //     = 22,970,368; total 25,028,904.
  //   resnext101_32x8d (w = 4p): stages 420,864 + 2,405,376 + 55,160,832 + 28,745,728
  //     = 86,732,800; total 88,791,336.
  EXPECT_EQ(build("resnext50-32x4d").params(), 25'028'904);
  EXPECT_EQ(build("resnext101-32x8d").params(), 88'791'336);
  EXPECT_EQ(tensor_count(build("resnext50-32x4d")), 161u);  // as resnet50: same layer list
  EXPECT_EQ(tensor_count(build("resnext101-32x8d")), 314u);
  // The grouped conv: 32 groups of 4 channels in layer1 of resnext50_32x4d (width 128).
  const Model resnext50 = build("resnext50-32x4d");
  const Layer& conv2 = layer(resnext50, "layer1.0.conv2");
  EXPECT_EQ(conv2.param_tensors, (std::vector<int64_t>{128 * 4 * 3 * 3}));
  EXPECT_DOUBLE_EQ(conv2.fwd_flops, 2.0 * 4 * 9 * 128 * 56 * 56);
  EXPECT_EQ(conv2.dims.back(), 32);  // groups, for the harness's cuDNN descriptor
}

TEST(ModelZooParams, VggAndAlexNetMatchTorchvision) {
  // VGG-16 convs (3x3, bias): 1,792 + 36,928 + 73,856 + 147,584 + 295,168 + 2*590,080
  //   + 1,180,160 + 5*2,359,808 = 14,714,688; classifier 25088*4096+4096 = 102,764,544,
  //   4096*4096+4096 = 16,781,312, 4096*1000+1000 = 4,097,000. Total 138,357,544.
  EXPECT_EQ(build("vgg16").params(), 138'357'544);
  // AlexNet convs: 23,296 + 307,392 + 663,936 + 884,992 + 590,080 = 2,469,696; classifier
  //   9216*4096+4096 = 37,752,832, 16,781,312, 4,097,000. Total 61,100,840.
  EXPECT_EQ(build("alexnet").params(), 61'100'840);
}

TEST(ModelZooParams, InceptionV3WithAuxMatchesTorchvision) {
  // Every BasicConv2d is k_h*k_w*in*out + 2*out. Main network without the auxiliary classifier:
  // 23,834,568 (torchvision's aux_logits=False count); AuxLogits: conv0 768*128 + 256 = 98,560,
  // conv1 25*128*768 + 1,536 = 2,459,136, fc 768*1000 + 1000 = 769,000, total 3,326,696.
  const Model m = build("inception-v3");
  EXPECT_EQ(m.params(), 27'161'264);
  int64_t aux = 0;
  for (const Layer& l : m.layers) {
    if (l.name.rfind("AuxLogits.", 0) == 0) aux += l.params();
  }
  EXPECT_EQ(aux, 3'326'696);
  EXPECT_EQ(m.params() - aux, 23'834'568);
}

TEST(ModelZooParams, VitB16MatchesTorchvision) {
  // conv_proj 16*16*3*768 + 768 = 590,592; class token 768; pos_embedding 197*768 = 151,296;
  // block: 2 LN 3,072 + in_proj 768*2304+2304 + out_proj 768*768+768 + MLP 768*3072+3072 +
  // 3072*768+768 = 7,087,872, times 12 = 85,054,464; encoder.ln 1,536; head 769,000.
  EXPECT_EQ(build("vit-b16").params(), 86'567'656);
}

TEST(ModelZooParams, BertMatchesHuggingFace) {
  // Embeddings: (30522 + 512 + 2) * d + LN 2d. Layer: 4 (d^2 + d) + 2 (d*4d) + 4d + d + 4d LN
  // = 12 d^2 + 13 d. Pooler d^2 + d.
  //   base  (d=768,  12 layers): 23,837,184 + 12 * 7,087,872 + 590,592   = 109,482,240
  //   large (d=1024, 24 layers): 31,782,912 + 24 * 12,596,224 + 1,049,600 = 335,141,888
  EXPECT_EQ(build("bert-base").params(), 109'482'240);
  EXPECT_EQ(build("bert-large").params(), 335'141'888);
  // BertForQuestionAnswering: no pooler, qa_outputs d*2 + 2.
  EXPECT_EQ(build("bert-base-squad").params(), 109'482'240 - 590'592 + 1'538);
  EXPECT_EQ(build("bert-large-squad").params(), 335'141'888 - 1'049'600 + 2'050);
}

TEST(ModelZooParams, Gpt2MatchesHuggingFaceWithTiedHead) {
  // wte 50257 d + wpe 1024 d + L (12 d^2 + 13 d) + ln_f 2d; lm_head is tied to wte.
  auto formula = [](int64_t d, int64_t layers) {
    return 50257 * d + 1024 * d + layers * (12 * d * d + 13 * d) + 2 * d;
  };
  EXPECT_EQ(formula(768, 12), 124'439'808);  // the published counts, from the formula
  EXPECT_EQ(formula(1024, 24), 354'823'168);
  EXPECT_EQ(formula(1280, 36), 774'030'080);
  EXPECT_EQ(formula(1600, 48), 1'557'611'200);
  EXPECT_EQ(build("gpt2").params(), 124'439'808);
  EXPECT_EQ(build("gpt2-medium").params(), 354'823'168);
  EXPECT_EQ(build("gpt2-large").params(), 774'030'080);
  EXPECT_EQ(build("gpt2-xl").params(), 1'557'611'200);
  const Model m = build("gpt2");
  EXPECT_TRUE(layer(m, "lm_head").param_tensors.empty());
  EXPECT_EQ(layer(m, "transformer.wte").param_tensors, std::vector<int64_t>{50257 * 768});
}

TEST(ModelZooParams, TransformerBigSharesOneVocabularyTable) {
  // Shared table 32768 * 1024 = 33,554,432; encoder layer 12 d^2 + 13 d = 12,596,224 (x6);
  // decoder layer 16 d^2 + 19 d = 16,796,672 (x6). Total 209,911,808.
  const Model m = build("transformer-big");
  EXPECT_EQ(m.params(), 209'911'808);
  EXPECT_EQ(layer(m, "encoder.embed_tokens").params(), 32768 * 1024);
  EXPECT_EQ(layer(m, "decoder.embed_tokens").params(), 0);
  EXPECT_EQ(layer(m, "decoder.output_projection").params(), 0);
}

TEST(ModelZooParams, MlpFollowsLinearFormula) {
  const std::vector<int> widths{1024, 4096, 4096, 10};
  const Model m = build("mlp", 0, widths);
  EXPECT_EQ(m.params(), mlp_params(widths));
  EXPECT_EQ(m.params(), 1024 * 4096 + 4096 + 4096 * 4096 + 4096 + 4096 * 10 + 10);
  EXPECT_EQ(build("mlp", 0, {7, 3}).params(), 7 * 3 + 3);
  EXPECT_EQ(m.sample_unit, "samples");
}

// ------------------------------------------------------------------ parameter tensor structure

TEST(ModelZooTensors, CountsAndOrderMatchModelParameters) {
  // resnet50: 53 convs (1 + 16 blocks * 3 + 4 downsample), each followed by a BN (2 tensors),
  // plus fc weight and bias: 53 + 106 + 2 = 161.
  EXPECT_EQ(tensor_count(build("resnet50")), 161u);
  // vgg16: 13 convs + 3 linears, weight and bias each.
  EXPECT_EQ(tensor_count(build("vgg16")), 32u);
  // inception-v3: 96 BasicConv2d (5 stem + 3*7 A + 4 B + 4*10 C + 6 D + 2*9 E + 2 aux), 3 tensors
  // each, plus two fc layers.
  EXPECT_EQ(tensor_count(build("inception-v3")), 292u);
  // gpt2: wte, wpe, 12 blocks of 12 tensors, ln_f weight and bias.
  EXPECT_EQ(tensor_count(build("gpt2")), 148u);
  // bert-base: 3 embeddings + LN, 12 layers of 16 tensors, pooler weight and bias.
  EXPECT_EQ(tensor_count(build("bert-base")), 199u);
  // vit-b16: class token, conv_proj w+b, pos_embedding, 12 blocks of 12, encoder.ln, head.
  EXPECT_EQ(tensor_count(build("vit-b16")), 152u);

  const Model r = build("resnet50");
  EXPECT_EQ(r.layers.front().name, "conv1");
  EXPECT_EQ(layer(r, "fc").param_tensors, (std::vector<int64_t>{2048 * 1000, 1000}));
  EXPECT_EQ(layer(r, "layer4.2.bn3").param_tensors, (std::vector<int64_t>{2048, 2048}));
  EXPECT_EQ(layer(r, "layer2.0.downsample.0").param_tensors, std::vector<int64_t>{256 * 512});
  const Model g = build("gpt2");
  EXPECT_EQ(layer(g, "transformer.h.0.attn.c_attn").param_tensors,
            (std::vector<int64_t>{768 * 2304, 2304}));
}

TEST(ModelZooTensors, EveryLayerIsWellFormedAndUniquelyNamed) {
  for (const ZooEntry& e : model_zoo()) {
    const Model m = e.key == "mlp" ? build("mlp", 0, {784, 512, 10}) : build(e.key);
    ASSERT_FALSE(m.layers.empty()) << e.key;
    EXPECT_FALSE(e.description.empty()) << e.key;
    EXPECT_EQ(m.name, e.key);
    std::set<std::string> names;
    int64_t params = 0;
    double flops = 0;
    for (const Layer& l : m.layers) {
      EXPECT_TRUE(names.insert(l.name).second) << e.key << ": duplicate layer " << l.name;
      EXPECT_FALSE(l.name.empty()) << e.key;
      EXPECT_TRUE(std::isfinite(l.fwd_flops) && l.fwd_flops >= 0) << e.key << " " << l.name;
      EXPECT_TRUE(std::isfinite(l.fwd_bytes) && l.fwd_bytes > 0) << e.key << " " << l.name;
      EXPECT_TRUE(std::isfinite(l.activation_elems) && l.activation_elems >= 0)
          << e.key << " " << l.name;
      for (int64_t t : l.param_tensors) EXPECT_GT(t, 0) << e.key << " " << l.name;
      // Layers with weights do products (2x backward); weightless ones are element-wise (1x),
      // except the attention matmuls, whose operands are both activations.
      const bool product = l.kind == LayerKind::kConv || l.kind == LayerKind::kLinear ||
                           l.kind == LayerKind::kAttention;
      EXPECT_DOUBLE_EQ(l.bwd_flops_factor, product ? 2.0 : 1.0) << e.key << " " << l.name;
      params += l.params();
      flops += l.fwd_flops;
    }
    EXPECT_EQ(m.params(), params) << e.key;
    EXPECT_DOUBLE_EQ(m.fwd_flops(), flops) << e.key;
    EXPECT_GT(m.activation_elems(), 0) << e.key;
  }
}

TEST(ModelZooTensors, ZooKeysAreUniqueAndSampleUnitsMatchTheDomain) {
  std::set<std::string> keys;
  for (const ZooEntry& e : model_zoo()) EXPECT_TRUE(keys.insert(e.key).second) << e.key;
  EXPECT_EQ(keys.size(), 23u);  // 19 built by hand, 4 from their config.json
  for (const char* k :
       {"resnet50", "resnext101-32x8d", "vgg16", "alexnet", "inception-v3", "vit-b16"}) {
    EXPECT_EQ(build(k).sample_unit, "images") << k;
  }
  for (const char* k :
       {"bert-base", "bert-large-squad", "gpt2-xl", "transformer-big", "llama2-7b", "mistral-7b"}) {
    EXPECT_EQ(build(k).sample_unit, "sequences") << k;
  }
}

// ------------------------------------------------------------------ FLOPs

TEST(ModelZooFlops, ConvLayersFollowTheOutputShape) {
  const Model r = build("resnet50");
  // conv1: 7x7x3 -> 64 at 112x112.
  EXPECT_DOUBLE_EQ(layer(r, "conv1").fwd_flops, 2.0 * 3 * 7 * 7 * 64 * 112 * 112);
  // layer1 runs at 56x56 after the stride-2 max pool.
  EXPECT_DOUBLE_EQ(layer(r, "layer1.0.conv2").fwd_flops, 2.0 * 64 * 9 * 64 * 56 * 56);
  // v1.5: the stride of layer2 sits on the 3x3 conv, so conv1 is still at 56x56.
  EXPECT_DOUBLE_EQ(layer(r, "layer2.0.conv1").fwd_flops, 2.0 * 256 * 128 * 56 * 56);
  EXPECT_DOUBLE_EQ(layer(r, "layer2.0.conv2").fwd_flops, 2.0 * 128 * 9 * 128 * 28 * 28);
  EXPECT_DOUBLE_EQ(layer(r, "layer4.2.conv3").fwd_flops, 2.0 * 512 * 2048 * 7 * 7);
  const Model inc = build("inception-v3");
  // 299 -> 149 -> 147 -> 147 -> 73 -> 73 -> 71 -> 35 (Mixed_5) -> 17 (Mixed_6) -> 8 (Mixed_7).
  EXPECT_DOUBLE_EQ(layer(inc, "Mixed_5b.branch1x1.conv").fwd_flops, 2.0 * 192 * 64 * 35 * 35);
  EXPECT_DOUBLE_EQ(layer(inc, "Mixed_6b.branch7x7_2.conv").fwd_flops,
                   2.0 * 128 * 7 * 128 * 17 * 17);
  EXPECT_DOUBLE_EQ(layer(inc, "Mixed_7c.branch1x1.conv").fwd_flops, 2.0 * 2048 * 320 * 8 * 8);
}

TEST(ModelZooFlops, CnnProductsMatchTorchvisionMultiplyAccumulates) {
  // torchvision's published GFLOPS of the weights' metadata are multiply-accumulates (eval mode,
  // no auxiliary classifier): resnet50 4.089, resnet101 7.801, resnet152 11.514, vgg16 15.470,
  // alexnet 0.714, inception_v3 5.713, vit_b_16 17.564 (which also counts attention matmuls),
  // resnext50_32x4d 4.23, resnext101_32x8d 16.41 (4.230 and 16.414 counted with forward hooks
  // on torchvision 0.14).
  auto near = [](double flops, double gmac, double rel) {
    return std::abs(flops / (2e9 * gmac) - 1) < rel;
  };
  EXPECT_TRUE(near(matmul_flops(build("resnet50")), 4.089, 0.002));
  EXPECT_TRUE(near(matmul_flops(build("resnet101")), 7.801, 0.002));
  EXPECT_TRUE(near(matmul_flops(build("resnet152")), 11.514, 0.002));
  EXPECT_TRUE(near(matmul_flops(build("resnext50-32x4d")), 4.230, 0.002));
  EXPECT_TRUE(near(matmul_flops(build("resnext101-32x8d")), 16.414, 0.002));
  EXPECT_TRUE(near(matmul_flops(build("vgg16")), 15.470, 0.002));
  EXPECT_TRUE(near(matmul_flops(build("alexnet")), 0.714, 0.002));
  EXPECT_TRUE(near(matmul_flops(build("inception-v3"), "AuxLogits."), 5.713, 0.002));
  const Model vit = build("vit-b16");
  double attention = 0;
  for (const Layer& l : vit.layers) {
    if (l.kind == LayerKind::kAttention) attention += 4.0 * 197 * 197 * 768;  // the matmuls
  }
  EXPECT_TRUE(near(matmul_flops(vit) + attention, 17.564, 0.002));
}

TEST(ModelZooFlops, WholeCnnForwardIsWithinFivePercentOfTheKnownTotal) {
  // All layers included (BN, ReLU, pooling add ~1-2 % on top of the products).
  EXPECT_NEAR(build("resnet50").fwd_flops() / 8.2e9, 1.0, 0.05);  // ~4.1 GMAC
  EXPECT_NEAR(build("vgg16").fwd_flops() / 31.0e9, 1.0, 0.05);    // ~15.5 GMAC
  EXPECT_NEAR(build("vit-b16").fwd_flops() / 35.1e9, 1.0, 0.05);  // ~17.6 GMAC
}

TEST(ModelZooFlops, Gpt2IsTwoFlopsPerParameterPerTokenPlusAttention) {
  // Forward ~ 2 * params * seq (the tied lm_head makes the embedding count like a matmul)
  // + 4 * layers * seq^2 * d for Q K^T and P V.
  struct Size {
    const char* key;
    double d, layers;
  };
  for (const Size& s : {Size{"gpt2", 768, 12}, Size{"gpt2-medium", 1024, 24},
                        Size{"gpt2-large", 1280, 36}, Size{"gpt2-xl", 1600, 48}}) {
    const Model m = build(s.key);
    EXPECT_EQ(m.sequence_length, 1024);
    const double seq = 1024;
    const double expected = 2.0 * m.params() * seq + 4.0 * s.layers * seq * seq * s.d;
    EXPECT_NEAR(m.fwd_flops() / expected, 1.0, 0.01) << s.key;
  }
}

TEST(ModelZooFlops, BertLargeAtSequence128) {
  // 24 layers of 12 d^2 weights at 2 FLOPs per weight per token, plus attention 4 s^2 d per
  // layer: 2 * 24 * 12 * 1024^2 * 128 + 24 * 4 * 128^2 * 1024 = 77.3 + 1.6 = 78.9 GFLOP.
  const Model m = build("bert-large");
  EXPECT_EQ(m.sequence_length, 128);
  const double d = 1024, s = 128;
  const double expected = 2 * 24 * 12 * d * d * s + 24 * 4 * s * s * d;
  EXPECT_NEAR(m.fwd_flops() / expected, 1.0, 0.01);
}

TEST(ModelZooFlops, SequenceLengthChangesFlopsNotParameters) {
  const Model b128 = build("bert-base");
  const Model b512 = build("bert-base", 512);
  EXPECT_EQ(b128.params(), b512.params());
  EXPECT_EQ(b512.sequence_length, 512);
  // Per-token layers scale linearly, attention quadratically.
  EXPECT_DOUBLE_EQ(layer(b512, "encoder.layer.0.attention.self.query").fwd_flops,
                   4 * layer(b128, "encoder.layer.0.attention.self.query").fwd_flops);
  EXPECT_NEAR(layer(b512, "encoder.layer.0.attention.self.core").fwd_flops /
                  layer(b128, "encoder.layer.0.attention.self.core").fwd_flops,
              16.0, 1e-9);
  EXPECT_GT(b512.fwd_flops(), 4 * b128.fwd_flops());
  EXPECT_GT(b512.activation_elems(), 4 * b128.activation_elems());

  const Model g1024 = build("gpt2");
  const Model g256 = build("gpt2", 256);
  EXPECT_EQ(g1024.params(), g256.params());
  EXPECT_LT(g256.fwd_flops(), g1024.fwd_flops() / 4);

  const Model t = build("transformer-big");
  EXPECT_EQ(t.sequence_length, 128);
  EXPECT_EQ(build("transformer-big", 64).params(), t.params());
  EXPECT_LT(build("transformer-big", 64).fwd_flops(), t.fwd_flops() / 2);
}

TEST(ModelZooFlops, AttentionKeepsTheProbabilitiesOnlyWhenUnfused) {
  // HF eager attention keeps heads x s x s probabilities (and their dropout); torchvision's ViT
  // uses scaled_dot_product_attention and keeps only the output and a logsumexp per row.
  // The models outlive the references into them (a temporary would dangle: ASan found it).
  const Model bert_model = build("bert-base"), vit_model = build("vit-b16");
  const Layer& bert = layer(bert_model, "encoder.layer.0.attention.self.core");
  EXPECT_GE(bert.activation_elems, 12.0 * 128 * 128 * 2);
  const Layer& vit = layer(vit_model, "encoder.layers.encoder_layer_0.self_attention.core");
  EXPECT_LT(vit.activation_elems, 12.0 * 197 * 197);
  EXPECT_GE(vit.activation_elems, 197.0 * 768);
}

// ------------------------------------------------------------------ bad specs

TEST(ModelZooErrors, UnknownNameListsEveryKnownKey) {
  const std::string error = build_error("resnet-50");
  EXPECT_NE(error.find("resnet-50"), std::string::npos) << error;
  for (const ZooEntry& e : model_zoo()) {
    EXPECT_NE(error.find(e.key), std::string::npos) << e.key << " missing from: " << error;
  }
}

TEST(ModelZooErrors, BadMlpSpecsAreRejected) {
  EXPECT_NE(build_error("mlp").find("at least 2 widths"), std::string::npos);
  EXPECT_NE(build_error("mlp", 0, {128}).find("at least 2 widths"), std::string::npos);
  EXPECT_NE(build_error("mlp", 0, {128, 0, 10}).find("model.layers[1]"), std::string::npos);
  EXPECT_NE(build_error("mlp", 0, {128, 64, -3}).find("model.layers[2]"), std::string::npos);
  EXPECT_NE(build_error("resnet50", 0, {128, 10}).find("only to model 'mlp'"), std::string::npos);
}

TEST(ModelZooErrors, SequenceLengthMustFitTheModel) {
  EXPECT_NE(build_error("bert-base", 513).find("at most 512"), std::string::npos);
  EXPECT_NE(build_error("gpt2", 2048).find("at most 1024"), std::string::npos);
  EXPECT_NE(build_error("gpt2", -1).find(">= 0"), std::string::npos);
  EXPECT_NE(build_error("resnet50", 128).find("no sequence length"), std::string::npos);
  EXPECT_NE(build_error("vit-b16", 128).find("no sequence length"), std::string::npos);
  EXPECT_EQ(build("bert-large", 512).sequence_length, 512);
  EXPECT_EQ(build("resnet50").sequence_length, 0);
}

}  // namespace
}  // namespace ddpsim
