// Double-precision CPU reference of GEMM (kernels/gemm.h), row-major:
//   C (m x n) = alpha * op(A) * op(B) + beta * C, op(A) m x k, op(B) k x n,
// where op(X) = X or X^T. A is stored m x k (or k x m when transposed), B k x n (or n x k).
#pragma once

#include <cstdint>
#include <vector>

namespace ddpsim::ref {

using Vec = std::vector<double>;

void gemm(bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k, double alpha, const Vec& a,
          const Vec& b, double beta, Vec& c);

}  // namespace ddpsim::ref
