// Model FLOPs of a transformer as PaLM's appendix B counts them (Chowdhery et al. 2022,
// arXiv:2204.02311): 6N + 12 L H Q T per token trained (2N forward, 4N backward for the
// weights; 6 x 2 H Q T per layer for the attention scores and their weighted sum), and the
// utilisations built on it: MFU = model FLOPs per token x tokens/s / (GPUs x peak), HFU the same
// with the hardware FLOPs, which add the forward that activation checkpointing runs again.
// Pure: no SimGrid, no files.
//
// Read from the model's layers, so every transformer gets it (zoo, Hugging Face configs, model
// files): N is the trainable parameters that multiply every token (embedding lookups excluded, an
// output head tied to an embedding counted once, as its matmul: what nanoGPT and torchtitan
// count), L H Q T is summed over the attention layers (dims q_tokens, heads, head_dim,
// kv_tokens: a sliding window or cross-attention reads its own key count). Tokens per sample are
// model.sequence_length, else the longest attention's query count (a ViT's patches + class).
#pragma once

#include "sim/model/layer.h"

#include "sim/results/llm_units.h"  // flops_utilisation

namespace ddpsim {

struct TransformerFlops {
  bool transformer = false;  // the model has attention layers (else every figure is 0)
  double tokens_per_sample = 0;
  double params = 0;               // N
  double attention_per_token = 0;  // 12 L H Q T
  // Under activation checkpointing: the part of N and of the attention term whose forward runs
  // again in backward (the repeated blocks; iteration_plan.cpp recomputes exactly those).
  double recomputed_params = 0;
  double recomputed_attention_per_token = 0;  // 12 L H Q T over the recomputed layers

  double model_flops_per_token() const { return 6 * params + attention_per_token; }
  // Model FLOPs plus the recomputed forward (2N' + 4 L'H Q T); equal without checkpointing.
  double hardware_flops_per_token(bool checkpointing) const {
    return model_flops_per_token() +
           (checkpointing ? 2 * recomputed_params + recomputed_attention_per_token / 3 : 0);
  }
};

TransformerFlops transformer_flops(const Model& model);


}  // namespace ddpsim
