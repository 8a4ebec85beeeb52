// Double-precision CPU references of embedding lookup and cross-entropy loss
// (kernels/embedding.cu, kernels/cross_entropy.cu).
#pragma once

#include <cstdint>
#include <vector>

namespace ddpsim::ref {

using Vec = std::vector<double>;

// out[t, :] = table[ids[t], :] for a (vocab x dim) table.
Vec embedding_fwd(const Vec& table, const std::vector<int32_t>& ids, int64_t dim);
// dtable[v, :] = sum of dout[t, :] over the t with ids[t] == v (repeated ids accumulate).
Vec embedding_bwd(const Vec& dout, const std::vector<int32_t>& ids, int64_t vocab, int64_t dim);

// Mean over rows of -log softmax(logits[r])[labels[r]], as torch.nn.CrossEntropyLoss.
double cross_entropy_fwd(const Vec& logits, const std::vector<int32_t>& labels, int64_t rows,
                         int64_t classes);
// d loss / d logits = (softmax(logits) - onehot(label)) / rows.
Vec cross_entropy_bwd(const Vec& logits, const std::vector<int32_t>& labels, int64_t rows,
                      int64_t classes);

}  // namespace ddpsim::ref
