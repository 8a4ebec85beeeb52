// HuggingFace transformers GPT2LMHeadModel: GPT2Model (pre-norm blocks, Conv1D projections,
// gelu_new, dropout 0.1) plus lm_head, whose weight is tied to wte and so adds no parameter:
// the count is GPT2Model's. lm_head's matmul over the 50257-token vocabulary and the
// language-modelling loss are part of every training step, so they are layers here. Attention
// is the eager implementation (causal mask applied to the full seq x seq scores) unless the
// config asks for sdpa / flash attention; dropout is HF's 0.1 unless the config sets it to 0.
#include <string>

#include "sim/model/architectures.h"
#include "sim/model/layer_builders.h"

namespace ddpsim::zoo {

std::vector<Layer> gpt2(const Gpt2Config& c, int64_t seq) {
  Layers L;
  const int64_t d = c.hidden;
  const int64_t n = seq * d;
  const int64_t inner = c.inner > 0 ? c.inner : 4 * d;
  // wte is listed once, here; lm_head's gradient accumulates into it, and this layer is the last
  // in backward, so the tensor is ready exactly when DDP would find it ready.
  embedding(L, "transformer.wte", seq, c.vocab, d);
  embedding(L, "transformer.wpe", seq, c.max_positions, d);
  add(L, "transformer.add_positions", n, false);
  if (c.dropout) dropout(L, "transformer.drop", n);
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i) + ".";
    layernorm(L, p + "ln_1", seq, d);
    linear(L, p + "attn.c_attn", seq, d, 3 * d, true);
    attention_core(L, p + "attn.core", seq, seq, d, c.heads, c.dropout, c.fused_attention);
    linear(L, p + "attn.c_proj", seq, d, d, true, false, false);
    if (c.dropout) dropout(L, p + "attn.resid_dropout", n, false);
    add(L, p + "residual1", n, true);
    layernorm(L, p + "ln_2", seq, d);
    linear(L, p + "mlp.c_fc", seq, d, inner, true);
    gelu(L, p + "mlp.act", seq * inner);
    linear(L, p + "mlp.c_proj", seq, inner, d, true, false, false);
    if (c.dropout) dropout(L, p + "mlp.dropout", n, false);
    add(L, p + "residual2", n, true);
  }
  layernorm(L, "transformer.ln_f", seq, d);
  // The logits are returned to the caller, so they stay alive through backward.
  linear(L, "lm_head", seq, d, c.vocab, false, /*tied=*/c.tied);
  cross_entropy(L, "loss", seq, c.vocab);
  return L;
}

}  // namespace ddpsim::zoo
