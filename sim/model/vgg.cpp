// torchvision.models.vgg16 (configuration "D", no batch norm): `features` and `classifier` are
// nn.Sequential, so layers are named by their index there, as in the state dict.
#include <string>

#include "sim/model/architectures.h"
#include "sim/model/layer_builders.h"

namespace ddpsim::zoo {

std::vector<Layer> vgg16() {
  constexpr int kMaxPool = 0;
  const int config[] = {64,       64,  kMaxPool, 128, 128,      kMaxPool, 256, 256, 256,
                        kMaxPool, 512, 512,      512, kMaxPool, 512,      512, 512, kMaxPool};
  Layers L;
  Image x{3, 224, 224};
  int index = 0;
  for (int v : config) {
    if (v == kMaxPool) {
      x = maxpool2d(L, "features." + std::to_string(index++), x, square(2, 2));
    } else {
      x = conv2d(L, "features." + std::to_string(index++), x, v, square(3, 1, 1), true);
      relu(L, "features." + std::to_string(index++), x.elems(), true);
    }
  }
  x = adaptive_avgpool2d(L, "avgpool", x, 7, 7);
  linear(L, "classifier.0", 1, x.elems(), 4096, true);
  relu(L, "classifier.1", 4096, true);
  dropout(L, "classifier.2", 4096);
  linear(L, "classifier.3", 1, 4096, 4096, true);
  relu(L, "classifier.4", 4096, true);
  dropout(L, "classifier.5", 4096);
  linear(L, "classifier.6", 1, 4096, 1000, true);
  cross_entropy(L, "loss", 1, 1000);
  return L;
}

}  // namespace ddpsim::zoo
