// Double-precision CPU references of the optimizer updates (kernels/optimizer.cu), with
// PyTorch's semantics (torch.optim.SGD with momentum and dampening 0, torch.optim.Adam with L2
// weight decay added to the gradient). Each call performs one step in place.
#pragma once

#include <vector>

namespace ddpsim::ref {

using Vec = std::vector<double>;

struct SgdMomentum {
  double lr = 0.1;
  double momentum = 0.9;
  double weight_decay = 0;
};
// g' = g + wd * w; buf = momentum * buf + g' (buf = g' on the first step); w -= lr * buf.
void sgd_momentum_step(Vec& w, const Vec& g, Vec& buf, bool first_step, const SgdMomentum& h);

struct Adam {
  double lr = 1e-3;
  double beta1 = 0.9;
  double beta2 = 0.999;
  double eps = 1e-8;
  double weight_decay = 0;
};
// step counts from 1. m = b1 m + (1-b1) g'; v = b2 v + (1-b2) g'^2;
// w -= lr * (m / (1 - b1^step)) / (sqrt(v / (1 - b2^step)) + eps).
void adam_step(Vec& w, const Vec& g, Vec& m, Vec& v, int step, const Adam& h);

}  // namespace ddpsim::ref
