// fairseq transformer_vaswani_wmt_en_de_big (Vaswani et al. 2017, "big"): 6 encoder and 6
// decoder post-norm layers, width 1024, 16 heads, FFN 4096 with ReLU, dropout 0.3,
// attention and activation dropout 0 (fairseq skips a dropout with p = 0), sinusoidal
// positions (a buffer, no parameters), no final layer norms (normalize_before is false).
//
// Trained as in fairseq's WMT'16 En-De recipe with --share-all-embeddings: one joined BPE
// dictionary of kTransformerBigVocab = 32768 entries whose table serves as encoder input,
// decoder input and output projection. parameters() lists it once, as
// encoder.embed_tokens.weight, so it is listed once here on the first layer, which is also
// the last in backward (every use has added its gradient by then). Count:
//   table                 32768 * 1024                               =  33,554,432
//   encoder layer         4 (d^2 + d) + 2d + (d*4d + 4d) + (4d*d + d) + 2d
//                         = 12 d^2 + 13 d                            =  12,596,224  (x 6)
//   decoder layer         encoder layer + encoder_attn 4 (d^2 + d) + its layer norm 2d
//                         = 16 d^2 + 19 d                            =  16,796,672  (x 6)
//   total                 33,554,432 + 75,577,344 + 100,780,032      = 209,911,808
//
// fairseq's MultiheadAttention registers k_proj, v_proj, q_proj, out_proj but forward() runs
// q, k, v; layers follow the forward pass. A sample is one sentence pair with `seq` source and
// `seq` target tokens.
#include <string>

#include "sim/model/architectures.h"
#include "sim/model/layer_builders.h"

namespace ddpsim::zoo {
namespace {

constexpr int64_t kDim = 1024, kFfn = 4096, kHeads = 16, kLayers = 6;

void attention(Layers& L, const std::string& p, int64_t q_tokens, int64_t kv_tokens) {
  linear(L, p + "q_proj", q_tokens, kDim, kDim, true);
  linear(L, p + "k_proj", kv_tokens, kDim, kDim, true);
  linear(L, p + "v_proj", kv_tokens, kDim, kDim, true);
  attention_core(L, p + "core", q_tokens, kv_tokens, kDim, kHeads, false, false);
  linear(L, p + "out_proj", q_tokens, kDim, kDim, true, false, false);
}

// x = LayerNorm(x + dropout(sublayer(x))), the post-norm residual around a sublayer. fairseq
// applies one dropout_module after every sublayer; each use gets its own name here.
void residual_norm(Layers& L, const std::string& p, const std::string& sublayer,
                   const std::string& norm, int64_t tokens) {
  dropout(L, p + sublayer + "_dropout", tokens * kDim, false);
  add(L, p + sublayer + "_residual", tokens * kDim, true);
  layernorm(L, p + norm, tokens, kDim);
}

void feed_forward(Layers& L, const std::string& p, int64_t tokens) {
  linear(L, p + "fc1", tokens, kDim, kFfn, true, false, false);  // F.relu saves its output
  relu(L, p + "activation_fn", tokens * kFfn, false);
  linear(L, p + "fc2", tokens, kFfn, kDim, true, false, false);
}

void embed(Layers& L, const std::string& p, int64_t tokens, bool owns_table) {
  embedding(L, p + "embed_tokens", tokens, kTransformerBigVocab, kDim, owns_table);
  scale(L, p + "embed_scale", tokens * kDim);  // * sqrt(1024)
  add(L, p + "embed_positions", tokens * kDim, false);
  dropout(L, p + "dropout_module", tokens * kDim);  // kept: the first layer's linears save it
}

}  // namespace

std::vector<Layer> transformer_big(int64_t seq) {
  Layers L;
  embed(L, "encoder.", seq, true);
  for (int64_t i = 0; i < kLayers; ++i) {
    const std::string p = "encoder.layers." + std::to_string(i) + ".";
    attention(L, p + "self_attn.", seq, seq);
    residual_norm(L, p, "self_attn", "self_attn_layer_norm", seq);
    feed_forward(L, p, seq);
    residual_norm(L, p, "ffn", "final_layer_norm", seq);
  }
  embed(L, "decoder.", seq, false);
  for (int64_t i = 0; i < kLayers; ++i) {
    const std::string p = "decoder.layers." + std::to_string(i) + ".";
    attention(L, p + "self_attn.", seq, seq);  // causal: the mask is applied to full scores
    residual_norm(L, p, "self_attn", "self_attn_layer_norm", seq);
    attention(L, p + "encoder_attn.", seq, seq);  // keys and values from the encoder output
    residual_norm(L, p, "encoder_attn", "encoder_attn_layer_norm", seq);
    feed_forward(L, p, seq);
    residual_norm(L, p, "ffn", "final_layer_norm", seq);
  }
  linear(L, "decoder.output_projection", seq, kDim, kTransformerBigVocab, false, /*tied=*/true,
         false);
  cross_entropy(L, "loss", seq, kTransformerBigVocab);  // label-smoothed: same cost
  return L;
}

}  // namespace ddpsim::zoo
