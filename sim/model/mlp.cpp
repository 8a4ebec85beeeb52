// A plain multi-layer perceptron as nn.Sequential(Linear, ReLU, Linear, ReLU, ..., Linear), with
// biases, trained with cross-entropy over the last width. Layers are named layers.<Sequential
// index>.
#include <string>

#include "sim/model/architectures.h"
#include "sim/model/layer_builders.h"

namespace ddpsim::zoo {

std::vector<Layer> mlp(const std::vector<int>& widths) {
  Layers L;
  int index = 0;
  for (size_t i = 0; i + 1 < widths.size(); ++i) {
    linear(L, "layers." + std::to_string(index++), 1, widths[i], widths[i + 1], true);
    if (i + 2 < widths.size()) relu(L, "layers." + std::to_string(index++), widths[i + 1], true);
  }
  cross_entropy(L, "loss", 1, widths.back());
  return L;
}

}  // namespace ddpsim::zoo
