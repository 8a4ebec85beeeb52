// Internal to the model zoo: one builder per architecture family. Each returns the layers in
// forward order, named as in the reference implementation; model_zoo.cpp adds the metadata
// (key, description, sample unit) and validates the spec before calling them.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/model/layer.h"

namespace ddpsim::zoo {

// torchvision resnet50 / resnet101 / resnet152 (v1.5: stride on the 3x3 conv), 224x224.
std::vector<Layer> resnet(int depth);
// torchvision vgg16 (no batch norm), 224x224.
std::vector<Layer> vgg16();
// torchvision alexnet, 224x224.
std::vector<Layer> alexnet();
// torchvision inception_v3 with the auxiliary classifier, 299x299.
std::vector<Layer> inception_v3();
// torchvision vit_b_16, 224x224 (196 patches + class token).
std::vector<Layer> vit_b16();

struct BertConfig {
  int64_t hidden = 768;
  int64_t layers = 12;
  int64_t heads = 12;
  int64_t intermediate = 3072;
  int64_t vocab = 30522;
  int64_t max_positions = 512;
  int64_t token_types = 2;
};
// HF BertModel (with pooler), or BertForQuestionAnswering (no pooler, qa_outputs) if `squad`.
std::vector<Layer> bert(const BertConfig& config, int64_t seq, bool squad);

struct Gpt2Config {
  int64_t hidden = 768;
  int64_t layers = 12;
  int64_t heads = 12;
  int64_t vocab = 50257;
  int64_t max_positions = 1024;
};
// HF GPT2LMHeadModel: GPT2Model plus the lm_head tied to wte, and the LM loss.
std::vector<Layer> gpt2(const Gpt2Config& config, int64_t seq);

// fairseq transformer_vaswani_wmt_en_de_big with --share-all-embeddings; source and target
// sentences of `seq` tokens each.
constexpr int64_t kTransformerBigVocab = 32768;
std::vector<Layer> transformer_big(int64_t seq);

// nn.Sequential of Linear(w[i], w[i+1]) with ReLU between; widths already validated.
std::vector<Layer> mlp(const std::vector<int>& widths);

}  // namespace ddpsim::zoo
