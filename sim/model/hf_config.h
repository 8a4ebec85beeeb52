// Models from a Hugging Face `config.json`, without PyTorch: the GPT-2, BERT, ViT and the dense
// decoder families Llama, Mistral, Qwen2 (Qwen2.5), Gemma, Gemma 2 and Phi-3, built layer by layer
// like the zoo (architectures.h) with HF's parameter names. JSON is read with the YAML reader (JSON
// is YAML), so every mistake is reported at its line and column; unknown keys are ignored (configs
// carry many that do not change the model).
#pragma once

#include <cstdint>
#include <string>

#include "sim/model/layer.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct HfConfig {
  std::string name;          // the model's name in ddpsim (the config's folder, or the zoo key)
  std::string model_type;    // gpt2, bert, llama, mistral, qwen2, gemma, gemma2, phi3, vit
  std::string architecture;  // architectures[0], or the family's default
  int64_t hidden = 0;
  int64_t layers = 0;
  int64_t heads = 0;
  int64_t kv_heads = 0;      // grouped-query attention; = heads when the config does not say
  int64_t head_dim = 0;      // 0 = hidden / heads
  int64_t intermediate = 0;  // MLP width; 0 = 4 x hidden (GPT-2's n_inner: null)
  int64_t vocab = 0;
  int64_t max_positions = 0;
  int64_t token_types = 0;  // BERT
  int64_t sliding_window = 0;
  bool tied = false;  // tie_word_embeddings
  bool attention_bias = false;
  bool mlp_bias = false;
  bool qkv_bias = true;  // ViT; Qwen2 (q, k, v only)
  // Gemma / Gemma 2 / Phi-3: see zoo::LlamaConfig.
  bool gemma = false, gemma2 = false, softcap = false, fused_projections = false;
  // attn_implementation "eager", "sdpa" or "flash_attention_2" when the config says; otherwise
  // sdpa, what transformers runs by default for every family here when PyTorch >= 2.1.1
  // (huggingface/transformers#27940; SDPA for GPT-2 in #31172, BERT in #28802).
  Attention attention = Attention::kSdpa;
  bool attention_stated = false;  // the config wrote attn_implementation
  // GPT-2 family: whether the *_pdrop probabilities are non-zero.
  bool dropout = true;
  int64_t image_size = 0, patch_size = 0, channels = 3, labels = 0;  // ViT
};

// `name` becomes HfConfig::name; `path` names the text in messages.
HfConfig parse_hf_config(const std::string& text, const std::string& path, const std::string& name);
// The name is the folder of a file called config.json, else the file's stem.
HfConfig load_hf_config(const std::string& path);

// Tokens per sample when the scenario does not say (0 for ViT, whose tokens the image fixes),
// and the most the position table or context allows.
int hf_default_sequence(const HfConfig& config);
int hf_max_sequence(const HfConfig& config);

// Builds the model at `sequence` tokens (0 = the default). False, with *error saying why, when
// the sequence length does not fit the model.
bool build_hf_model(const HfConfig& config, int sequence, Model* out, std::string* error);

}  // namespace ddpsim
