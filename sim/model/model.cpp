#include "sim/model/layer.h"

namespace ddpsim {

int64_t Model::params() const {
  int64_t n = 0;
  for (const Layer& l : layers) n += l.params();
  return n;
}

int64_t Model::frozen_params() const {
  int64_t n = 0;
  for (const Layer& l : layers) n += l.frozen_params();
  return n;
}

double Model::fwd_flops() const {
  double f = 0;
  for (const Layer& l : layers) f += l.fwd_flops;
  return f;
}

double Model::activation_elems() const {
  double a = 0;
  for (const Layer& l : layers) a += l.activation_elems;
  return a;
}

}  // namespace ddpsim
