#include "kernels/reference/optimizer.h"

#include <cmath>

namespace ddpsim::ref {

void sgd_momentum_step(Vec& w, const Vec& g, Vec& buf, bool first_step, const SgdMomentum& h) {
  for (size_t i = 0; i < w.size(); ++i) {
    const double grad = g[i] + h.weight_decay * w[i];
    buf[i] = first_step ? grad : h.momentum * buf[i] + grad;
    w[i] -= h.lr * buf[i];
  }
}

void adam_step(Vec& w, const Vec& g, Vec& m, Vec& v, int step, const Adam& h) {
  const double c1 = 1.0 - std::pow(h.beta1, step);
  const double c2 = 1.0 - std::pow(h.beta2, step);
  for (size_t i = 0; i < w.size(); ++i) {
    const double grad = g[i] + h.weight_decay * w[i];
    m[i] = h.beta1 * m[i] + (1 - h.beta1) * grad;
    v[i] = h.beta2 * v[i] + (1 - h.beta2) * grad * grad;
    w[i] -= h.lr * (m[i] / c1) / (std::sqrt(v[i] / c2) + h.eps);
  }
}

}  // namespace ddpsim::ref
