// Double-precision CPU references of the element-wise kernels (kernels/elementwise.cu): the
// definitions the GPU kernels are checked against, written for clarity, not speed.
#pragma once

#include <cstdint>
#include <vector>

namespace ddpsim::ref {

using Vec = std::vector<double>;

Vec relu_fwd(const Vec& x);
Vec relu_bwd(const Vec& x, const Vec& dy);  // dy where x > 0

// The exact GELU of PyTorch's default (approximate='none'): x * Phi(x), Phi the normal CDF.
Vec gelu_fwd(const Vec& x);
Vec gelu_bwd(const Vec& x, const Vec& dy);  // dy * (Phi(x) + x * phi(x))

// Inverted dropout with an explicit keep mask: y = x * keep / (1 - p).
Vec dropout_fwd(const Vec& x, const std::vector<uint8_t>& keep, double p);

// out = a + b (residual connections).
Vec add(const Vec& a, const Vec& b);

}  // namespace ddpsim::ref
