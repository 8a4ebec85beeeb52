// torchvision.models.alexnet (the "one weird trick" variant: 64-192-384-256-256 channels).
#include "sim/model/architectures.h"
#include "sim/model/layer_builders.h"

namespace ddpsim::zoo {

std::vector<Layer> alexnet() {
  Layers L;
  Image x{3, 224, 224};
  x = conv2d(L, "features.0", x, 64, square(11, 4, 2), true);  // 55x55
  relu(L, "features.1", x.elems(), true);
  x = maxpool2d(L, "features.2", x, square(3, 2));  // 27x27
  x = conv2d(L, "features.3", x, 192, square(5, 1, 2), true);
  relu(L, "features.4", x.elems(), true);
  x = maxpool2d(L, "features.5", x, square(3, 2));  // 13x13
  x = conv2d(L, "features.6", x, 384, square(3, 1, 1), true);
  relu(L, "features.7", x.elems(), true);
  x = conv2d(L, "features.8", x, 256, square(3, 1, 1), true);
  relu(L, "features.9", x.elems(), true);
  x = conv2d(L, "features.10", x, 256, square(3, 1, 1), true);
  relu(L, "features.11", x.elems(), true);
  x = maxpool2d(L, "features.12", x, square(3, 2));  // 6x6
  x = adaptive_avgpool2d(L, "avgpool", x, 6, 6);
  dropout(L, "classifier.0", x.elems());
  linear(L, "classifier.1", 1, x.elems(), 4096, true);
  relu(L, "classifier.2", 4096, true);
  dropout(L, "classifier.3", 4096);
  linear(L, "classifier.4", 1, 4096, 4096, true);
  relu(L, "classifier.5", 4096, true);
  linear(L, "classifier.6", 1, 4096, 1000, true);
  cross_entropy(L, "loss", 1, 1000);
  return L;
}

}  // namespace ddpsim::zoo
