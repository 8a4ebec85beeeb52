// torchvision.models.resnet{50,101,152} and resnext{50_32x4d,101_32x8d}: Bottleneck blocks
// (expansion 4), v1.5 placement of the stride on the 3x3 conv, no conv bias, ReLU(inplace=True)
// and `out += identity`. ResNeXt is the same network with a grouped 3x3 conv and wider blocks:
// torchvision's Bottleneck sets width = planes * (width_per_group / 64) * groups.
#include <array>
#include <stdexcept>
#include <string>

#include "sim/model/architectures.h"
#include "sim/model/layer_builders.h"

namespace ddpsim::zoo {
namespace {

constexpr int64_t kExpansion = 4;

Image bottleneck(Layers& L, const std::string& p, Image in, int64_t planes, int64_t width,
                 int64_t groups, int stride) {
  const int64_t out_channels = planes * kExpansion;
  Image x = conv2d(L, p + "conv1", in, width, square(1), false);
  batchnorm2d(L, p + "bn1", x);
  relu(L, p + "relu1", x.elems(), true);
  x = conv2d(L, p + "conv2", x, width, square(3, stride, 1), false, groups);
  batchnorm2d(L, p + "bn2", x);
  relu(L, p + "relu2", x.elems(), true);
  x = conv2d(L, p + "conv3", x, out_channels, square(1), false);
  batchnorm2d(L, p + "bn3", x);
  // The first block of a stage changes channels (and stride): identity = downsample(x).
  if (stride != 1 || in.c != out_channels) {
    const Image d = conv2d(L, p + "downsample.0", in, out_channels, square(1, stride), false);
    batchnorm2d(L, p + "downsample.1", d);
  }
  add(L, p + "residual", x.elems(), false);
  relu(L, p + "relu3", x.elems(), true);
  return x;
}

// torchvision's resnet50/101/152 differ only in the number of Bottlenecks per stage.
std::array<int, 4> blocks_per_stage(int depth) {
  if (depth == 50) return {3, 4, 6, 3};
  if (depth == 101) return {3, 4, 23, 3};
  if (depth == 152) return {3, 8, 36, 3};
  throw std::invalid_argument("resnet depth must be 50, 101 or 152");
}

std::vector<Layer> bottleneck_network(int depth, int64_t groups, int64_t width_per_group) {
  const std::array<int, 4> blocks = blocks_per_stage(depth);
  Layers L;
  Image x{3, 224, 224};
  x = conv2d(L, "conv1", x, 64, square(7, 2, 3), false);
  batchnorm2d(L, "bn1", x);
  relu(L, "relu", x.elems(), true);
  x = maxpool2d(L, "maxpool", x, square(3, 2, 1));
  const int64_t planes[4] = {64, 128, 256, 512};
  for (int stage = 0; stage < 4; ++stage) {
    for (int b = 0; b < blocks[stage]; ++b) {
      const int stride = (stage > 0 && b == 0) ? 2 : 1;
      const std::string prefix =
          "layer" + std::to_string(stage + 1) + "." + std::to_string(b) + ".";
      const int64_t width = planes[stage] * width_per_group / 64 * groups;
      x = bottleneck(L, prefix, x, planes[stage], width, groups, stride);
    }
  }
  x = adaptive_avgpool2d(L, "avgpool", x, 1, 1);
  linear(L, "fc", 1, x.elems(), 1000, true);
  cross_entropy(L, "loss", 1, 1000);
  return L;
}

}  // namespace

std::vector<Layer> resnet(int depth) { return bottleneck_network(depth, 1, 64); }

std::vector<Layer> resnext(int depth, int64_t groups, int64_t width_per_group) {
  return bottleneck_network(depth, groups, width_per_group);
}

}  // namespace ddpsim::zoo
