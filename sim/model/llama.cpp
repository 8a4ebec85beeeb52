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
//
// The same builder serves the dense families that differ from Llama only in the switches of
// LlamaConfig (transformers' modeling_qwen2.py, modeling_gemma.py, modeling_gemma2.py,
// modeling_phi3.py): Qwen2 puts a bias on q, k and v; Gemma scales the embeddings by
// sqrt(hidden) and gates with tanh GELU (GeGLU); Gemma 2 adds post_attention_layernorm after
// attention and pre/post_feedforward_layernorm around the MLP, windows every other layer and
// soft-caps the logits; Phi-3 holds q, k, v in one qkv_proj and gate and up in one gate_up_proj
// (the same elements and FLOPs as separate tensors, but one tensor each for DDP's buckets).
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
  embedding(L, "model.embed_tokens", seq, c.vocab, d);
  if (c.embed_scale) scale(L, "model.embed_scale", n);
  const bool qkv_bias = c.attention_bias || c.qkv_bias;
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i) + ".";
    const bool windowed = c.sliding_window > 0 && (!c.alternate_sliding || i % 2 == 0);
    const int64_t keys = windowed ? std::min(seq, c.sliding_window) : seq;
    rmsnorm(L, p + "input_layernorm", seq, d);
    if (c.fused_projections) {
      // One matmul; its q and k parts feed the rotary embedding, v goes to attention.
      linear(L, p + "self_attn.qkv_proj", seq, d, q_width + 2 * kv_width, qkv_bias);
    } else {
      // q and k feed the rotary embedding (which keeps nothing of them); v goes to attention.
      linear(L, p + "self_attn.q_proj", seq, d, q_width, qkv_bias, false, false);
      linear(L, p + "self_attn.k_proj", seq, d, kv_width, qkv_bias, false, false);
      linear(L, p + "self_attn.v_proj", seq, d, kv_width, qkv_bias);
    }
    rotary(L, p + "self_attn.rotary_emb", seq * (q_width + kv_width));
    attention_core(L, p + "self_attn.attention", seq, keys, q_width, c.heads, false, true,
                   c.kv_heads);
    linear(L, p + "self_attn.o_proj", seq, q_width, d, c.attention_bias, false, false);
    if (c.sandwich_norms) rmsnorm(L, p + "post_attention_layernorm", seq, d);
    add(L, p + "residual1", n, true);
    rmsnorm(L, p + (c.sandwich_norms ? "pre_feedforward_layernorm" : "post_attention_layernorm"),
            seq, d);
    const int64_t m = seq * c.intermediate;
    if (c.fused_projections) {
      linear(L, p + "mlp.gate_up_proj", seq, d, 2 * c.intermediate, c.mlp_bias);
    } else {
      linear(L, p + "mlp.gate_proj", seq, d, c.intermediate, c.mlp_bias);
    }
    if (c.gelu_mlp)
      gelu(L, p + "mlp.act_fn", m);
    else
      silu(L, p + "mlp.act_fn", m);
    if (!c.fused_projections) linear(L, p + "mlp.up_proj", seq, d, c.intermediate, c.mlp_bias);
    multiply(L, p + "mlp.gate_times_up", m, true);
    linear(L, p + "mlp.down_proj", seq, c.intermediate, d, c.mlp_bias, false, false);
    if (c.sandwich_norms) rmsnorm(L, p + "post_feedforward_layernorm", seq, d);
    add(L, p + "residual2", n, true);
  }
  rmsnorm(L, "model.norm", seq, d);
  // The logits are returned to the caller, so they stay alive through backward.
  linear(L, "lm_head", seq, d, c.vocab, false, /*tied=*/c.tied);
  if (c.logit_softcap) tanh_activation(L, "final_logit_softcapping", seq * c.vocab);
  cross_entropy(L, "loss", seq, c.vocab);
  return L;
}

}  // namespace ddpsim::zoo
