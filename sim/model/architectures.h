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
// torchvision resnext50_32x4d (50, 32, 4) / resnext101_32x8d (101, 32, 8): grouped 3x3 convs.
std::vector<Layer> resnext(int depth, int64_t groups, int64_t width_per_group);
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
// HF BertModel (with pooler) and its heads. `prefix` starts every name ("bert." inside HF's
// BertFor* classes; the zoo writes BertModel's own names).
enum class BertHead {
  kPooler,             // BertModel: pooler on [CLS], no loss
  kQuestionAnswering,  // BertForQuestionAnswering: no pooler, qa_outputs, span loss
  kMaskedLm,           // BertForMaskedLM: no pooler, MLM head tied to the word embeddings
  kPreTraining,        // BertForPreTraining: pooler, MLM head, next-sentence head
};
std::vector<Layer> bert(const BertConfig& config, int64_t seq, BertHead head,
                        const std::string& prefix = "");

struct Gpt2Config {
  int64_t hidden = 768;
  int64_t layers = 12;
  int64_t heads = 12;
  int64_t vocab = 50257;
  int64_t max_positions = 1024;
  int64_t inner = 0;             // MLP width (n_inner); 0 = 4 x hidden
  bool tied = true;              // lm_head shares wte (tie_word_embeddings)
  bool fused_attention = false;  // sdpa / flash attention instead of the eager path
  bool dropout = true;           // attention, residual and embedding dropout (HF's 0.1)
};
// HF GPT2LMHeadModel: GPT2Model plus the lm_head (tied to wte unless config.tied is false), and
// the LM loss.
std::vector<Layer> gpt2(const Gpt2Config& config, int64_t seq);

// fairseq transformer_vaswani_wmt_en_de_big with --share-all-embeddings; source and target
// sentences of `seq` tokens each.
constexpr int64_t kTransformerBigVocab = 32768;
std::vector<Layer> transformer_big(int64_t seq);

// HF ViTModel (`classes` = 0: with the pooler) or ViTForImageClassification (a classifier on
// [CLS], no pooler), names as HF writes them under `prefix` ("vit." inside the classifier).
struct VitConfig {
  int64_t hidden = 768;
  int64_t layers = 12;
  int64_t heads = 12;
  int64_t intermediate = 3072;
  int64_t image = 224;
  int64_t patch = 16;
  int64_t channels = 3;
  bool qkv_bias = true;
  int64_t classes = 0;
};
std::vector<Layer> hf_vit(const VitConfig& config, const std::string& prefix);

// HF LlamaForCausalLM / MistralForCausalLM: pre-norm decoder blocks with RMSNorm, rotary
// embeddings, grouped-query attention (fused SDPA, HF's default attn_implementation) and a
// SwiGLU MLP; an lm_head of its own unless tied, and the LM loss.
struct LlamaConfig {
  int64_t hidden = 4096;
  int64_t layers = 32;
  int64_t heads = 32;
  int64_t kv_heads = 32;
  int64_t head_dim = 0;  // 0 = hidden / heads
  int64_t intermediate = 11008;
  int64_t vocab = 32000;
  int64_t sliding_window = 0;  // Mistral: keys per query at most; 0 = the whole sequence
  bool tied = false;
  bool attention_bias = false;  // q, k, v and o projections
  bool mlp_bias = false;
  // The dense relatives built on the same tree (hf_config.cpp says which family sets what):
  bool qkv_bias = false;           // Qwen2: q, k, v with a bias, o without
  bool gelu_mlp = false;           // Gemma: GeGLU (tanh GELU on the gate) instead of SwiGLU
  bool embed_scale = false;        // Gemma: embeddings times sqrt(hidden)
  bool sandwich_norms = false;     // Gemma 2: RMSNorm after attention and around the MLP too
  bool alternate_sliding = false;  // Gemma 2: the window applies to every other layer (0, 2, ...)
  bool logit_softcap = false;      // Gemma 2: cap * tanh(logits / cap) before the loss
  bool fused_projections = false;  // Phi-3: one qkv_proj and one gate_up_proj tensor
};
std::vector<Layer> llama(const LlamaConfig& config, int64_t seq);

// nn.Sequential of Linear(w[i], w[i+1]) with ReLU between; widths already validated.
std::vector<Layer> mlp(const std::vector<int>& widths);

}  // namespace ddpsim::zoo
