// HuggingFace transformers BertModel (post-norm encoder, GELU, dropout 0.1 everywhere) with the
// pooler, and the heads of BertForQuestionAnswering (the SQuAD fine-tuning model: no pooler,
// qa_outputs), BertForMaskedLM (no pooler; the MLM head: dense, GELU, LayerNorm, a decoder tied
// to the word embeddings with its own bias) and BertForPreTraining (pooler, MLM head and the
// next-sentence classifier). Attention is the eager implementation: scores, softmax and
// attention dropout are written to memory and the probabilities are kept for backward.
//
// Forward order inside BertEmbeddings: word, token_type, position (parameters() lists word,
// position, token_type; the tensors are the last gradients of backward either way). The MLM
// decoder's bias is registered on the prediction head as `cls.predictions.bias`.
#include <string>

#include "sim/model/architectures.h"
#include "sim/model/layer_builders.h"

namespace ddpsim::zoo {

std::vector<Layer> bert(const BertConfig& c, int64_t seq, BertHead head,
                        const std::string& prefix) {
  Layers L;
  const int64_t d = c.hidden;
  const int64_t n = seq * d;
  const std::string e = prefix + "embeddings.";
  embedding(L, e + "word_embeddings", seq, c.vocab, d);
  embedding(L, e + "token_type_embeddings", seq, c.token_types, d);
  add(L, e + "add_token_type", n, true);
  embedding(L, e + "position_embeddings", seq, c.max_positions, d);
  add(L, e + "add_position", n, false);
  layernorm(L, e + "LayerNorm", seq, d);
  dropout(L, e + "dropout", n);  // kept: the next Q/K/V linears save their input
  for (int64_t i = 0; i < c.layers; ++i) {
    const std::string p = prefix + "encoder.layer." + std::to_string(i) + ".";
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
  const bool pooler = head == BertHead::kPooler || head == BertHead::kPreTraining;
  if (pooler) {
    // The pooler reads only the [CLS] token.
    linear(L, prefix + "pooler.dense", 1, d, d, true);
    tanh_activation(L, prefix + "pooler.activation", d);
  }
  if (head == BertHead::kMaskedLm || head == BertHead::kPreTraining) {
    // Prediction scores for every position over the vocabulary; the loss skips unmasked
    // positions (label -100) but the matmul and softmax run on all of them.
    linear(L, "cls.predictions.transform.dense", seq, d, d, true);
    gelu(L, "cls.predictions.transform.transform_act_fn", n);
    layernorm(L, "cls.predictions.transform.LayerNorm", seq, d);
    linear(L, "cls.predictions.decoder", seq, d, c.vocab, false, /*tied=*/true);
    L.back().param_tensors = {c.vocab};
    L.back().param_names = {"cls.predictions.bias"};
    cross_entropy(L, "mlm_loss", seq, c.vocab);
  }
  if (head == BertHead::kPreTraining) {
    linear(L, "cls.seq_relationship", 1, d, 2, true);
    cross_entropy(L, "nsp_loss", 1, 2);
  }
  if (head == BertHead::kQuestionAnswering) {
    // Start and end logits per token; loss = mean of two cross-entropies over the positions.
    linear(L, "qa_outputs", seq, d, 2, true);
    cross_entropy(L, "loss", 2, seq);
  }
  // BertModel alone has no loss: the task head that would follow is not part of it.
  return L;
}

}  // namespace ddpsim::zoo
