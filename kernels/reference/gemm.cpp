#include "kernels/reference/gemm.h"

namespace ddpsim::ref {

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const Vec& a,
          const Vec& b, double beta, Vec& c) {
  for (int64_t i = 0; i < m; ++i) {
    for (int64_t j = 0; j < n; ++j) {
      double sum = 0;
      for (int64_t p = 0; p < k; ++p) {
        const double av = trans_a ? a[p * m + i] : a[i * k + p];
        const double bv = trans_b ? b[j * k + p] : b[p * n + j];
        sum += av * bv;
      }
      c[i * n + j] = alpha * sum + (beta == 0 ? 0.0 : beta * c[i * n + j]);
    }
  }
}

}  // namespace ddpsim::ref
