// Hugging Face transformers LlamaForCausalLM and MistralForCausalLM (the same module tree):
//   model.embed_tokens, then per decoder layer
//     input_layernorm (RMSNorm) -> self_attn.{q,k,v}_proj -> rotary on q and k -> attention ->
//     self_attn.o_proj -> residual add -> post_attention_layernorm (RMSNorm) ->
//     mlp.down_proj(act_fn(mlp.gate_proj(x)) * mlp.up_proj(x)) -> residual add,
//   model.norm, lm_head (its own weight unless tie_word_embeddings), the LM loss.
// Attention is HF's default `sdpa` implementation: one fused kernel (flash or memory-efficient)
// that never writes the scores; with grouped-query attention the keys and values have kv_heads
// heads, shared by heads / kv_heads query heads. Mistral's sliding window bounds the keys each
// query reads (min(sequence, window)). No dropout (attention_dropout is 0 in every config).
//
// Layers follow the forward pass. parameters() lists a decoder layer's tensors as q, k, v, o,
// gate, up, down, input_layernorm, post_attention_layernorm; backward finishes them in about
// reverse forward order, which is the order ddpsim assumes (Model::gradient_order is empty).
#include <algorithm>
#include <string>

#include "sim/model/architectures.h"
#include "sim/model/layer_builders.h"

namespace ddpsim::zoo {

std::vector<Layer> llama(const LlamaConfig& c, int64_t seq) {
  Layers L;
  const int64_t d = c.hidden;
  const int64_t n = seq * d;
  const int64_t head_dim = c.head_dim > 0 ? c.head_dim : d / c.heads;
  const int64_t q_width = c.heads * head_dim;
  const int64_t kv_width = c.kv_heads * head_dim;
  const int64_t keys = c.sliding_window > 0 ? std::min(seq, c.sliding_window) : seq;
  embedding(L, "model.embed_tokens", seq, c.vocab, d);
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    rmsnorm(L, p + "input_layernorm", seq, d);
    // q and k feed the rotary embedding (which keeps nothing of them); v goes to attention.
    linear(L, p + "self_attn.q_proj", seq, d, q_width, c.attention_bias, false, false);
    linear(L, p + "self_attn.k_proj", seq, d, kv_width, c.attention_bias, false, false);
    linear(L, p + "self_attn.v_proj", seq, d, kv_width, c.attention_bias);
    rotary(L, p + "self_attn.rotary_emb", seq * (q_width + kv_width));
    attention_core(L, p + "self_attn.attention", seq, keys, q_width, c.heads, false, true,
                   c.kv_heads);
    linear(L, p + "self_attn.o_proj", seq, q_width, d, c.attention_bias, false, false);
    add(L, p + "residual1", n, true);
    rmsnorm(L, p + "post_attention_layernorm", seq, d);
    linear(L, p + "mlp.gate_proj", seq, d, c.intermediate, c.mlp_bias);
    silu(L, p + "mlp.act_fn", seq * c.intermediate);
    linear(L, p + "mlp.up_proj", seq, d, c.intermediate, c.mlp_bias);
    multiply(L, p + "mlp.gate_times_up", seq * c.intermediate, true);
    linear(L, p + "mlp.down_proj", seq, c.intermediate, d, c.mlp_bias, false, false);
    add(L, p + "residual2", n, true);
  }
  rmsnorm(L, "model.norm", seq, d);
  // The logits are returned to the caller, so they stay alive through backward.
  linear(L, "lm_head", seq, d, c.vocab, false, /*tied=*/c.tied);
  cross_entropy(L, "loss", seq, c.vocab);
  return L;
}

}  // namespace ddpsim::zoo
