#include "kernels/reference/embedding.h"

#include <cmath>

#include "kernels/reference/softmax.h"

namespace ddpsim::ref {

Vec embedding_fwd(const Vec& table, const std::vector<int32_t>& ids, int64_t dim) {
  Vec out(ids.size() * dim);
  for (size_t t = 0; t < ids.size(); ++t)
    for (int64_t d = 0; d < dim; ++d) out[t * dim + d] = table[ids[t] * dim + d];
  return out;
}

Vec embedding_bwd(const Vec& dout, const std::vector<int32_t>& ids, int64_t vocab, int64_t dim) {
  Vec dtable(vocab * dim, 0.0);
  for (size_t t = 0; t < ids.size(); ++t)
    for (int64_t d = 0; d < dim; ++d) dtable[ids[t] * dim + d] += dout[t * dim + d];
  return dtable;
}

double cross_entropy_fwd(const Vec& logits, const std::vector<int32_t>& labels, int64_t rows,
                         int64_t classes) {
  const Vec p = softmax_fwd(logits, rows, classes);
  double loss = 0;
  for (int64_t r = 0; r < rows; ++r) loss -= std::log(p[r * classes + labels[r]]);
  return loss / rows;
}

Vec cross_entropy_bwd(const Vec& logits, const std::vector<int32_t>& labels, int64_t rows,
                      int64_t classes) {
  Vec d = softmax_fwd(logits, rows, classes);
  for (int64_t r = 0; r < rows; ++r) d[r * classes + labels[r]] -= 1.0;
  for (double& v : d) v /= rows;
  return d;
}

}  // namespace ddpsim::ref
