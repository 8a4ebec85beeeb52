// HuggingFace transformers BertModel (post-norm encoder, GELU, dropout 0.1 everywhere) with the
// pooler, or BertForQuestionAnswering (BertModel(add_pooling_layer=False) + qa_outputs, the
// SQuAD fine-tuning model). Attention is the eager implementation: scores, softmax and
// attention dropout are written to memory and the probabilities are kept for backward.
//
// Forward order inside BertEmbeddings: word, token_type, position (parameters() lists word,
// position, token_type; the tensors are the last gradients of backward either way).
#include <string>

#include "sim/model/architectures.h"
#include "sim/model/layer_builders.h"

namespace ddpsim::zoo {

std::vector<Layer> bert(const BertConfig& c, int64_t seq, bool squad) {
  Layers L;
  const int64_t d = c.hidden;
  const int64_t n = seq * d;
  embedding(L, "embeddings.word_embeddings", seq, c.vocab, d);
  embedding(L, "embeddings.token_type_embeddings", seq, c.token_types, d);
  add(L, "embeddings.add_token_type", n, true);
  embedding(L, "embeddings.position_embeddings", seq, c.max_positions, d);
  add(L, "embeddings.add_position", n, false);
  layernorm(L, "embeddings.LayerNorm", seq, d);
  dropout(L, "embeddings.dropout", n);  // kept: the next Q/K/V linears save their input
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = "encoder.layer." + std::to_string(i) + ".";
    linear(L, p + "attention.self.query", seq, d, d, true);
    linear(L, p + "attention.self.key", seq, d, d, true);
    linear(L, p + "attention.self.value", seq, d, d, true);
    attention_core(L, p + "attention.self.core", seq, seq, d, c.heads, true, false);
    linear(L, p + "attention.output.dense", seq, d, d, true, false, false);
    dropout(L, p + "attention.output.dropout", n, false);
    add(L, p + "attention.output.residual", n, true);
    layernorm(L, p + "attention.output.LayerNorm", seq, d);
    linear(L, p + "intermediate.dense", seq, d, c.intermediate, true);
    gelu(L, p + "intermediate.intermediate_act_fn", seq * c.intermediate);
    linear(L, p + "output.dense", seq, c.intermediate, d, true, false, false);
    dropout(L, p + "output.dropout", n, false);
    add(L, p + "output.residual", n, true);
    layernorm(L, p + "output.LayerNorm", seq, d);
  }
  if (squad) {
    // Start and end logits per token; loss = mean of two cross-entropies over the positions.
    linear(L, "qa_outputs", seq, d, 2, true);
    cross_entropy(L, "loss", 2, seq);
  } else {
    // The pooler reads only the [CLS] token. BertModel has no loss: the pretraining or task head
    // that would follow is not part of this model.
    linear(L, "pooler.dense", 1, d, d, true);
    tanh_activation(L, "pooler.activation", d);
  }
  return L;
}

}  // namespace ddpsim::zoo
