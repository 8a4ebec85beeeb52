// torchvision.models.inception_v3(aux_logits=True) at 299x299. BasicConv2d is conv (no bias) +
// BatchNorm + F.relu(inplace=True); branches run in the order torchvision's forward() calls them
// (which is also their registration order), then torch.cat joins them along channels.
#include <initializer_list>
#include <string>

#include "sim/model/architectures.h"
#include "sim/model/layer_builders.h"

namespace ddpsim::zoo {
namespace {

Image basic_conv(Layers& L, const std::string& name, Image in, int64_t out_channels, Kernel2d k) {
  Image x = conv2d(L, name + ".conv", in, out_channels, k, false);
  batchnorm2d(L, name + ".bn", x);
  relu(L, name + ".relu", x.elems(), true);
  return x;
}

Image concat_channels(Layers& L, const std::string& p, std::initializer_list<Image> branches) {
  Image out = *branches.begin();
  out.c = 0;
  for (const Image& b : branches) out.c += b.c;
  concat(L, p + "cat", out.elems());
  return out;
}

Image inception_a(Layers& L, const std::string& p, Image x, int64_t pool_features) {
  const Image b1 = basic_conv(L, p + "branch1x1", x, 64, square(1));
  Image b5 = basic_conv(L, p + "branch5x5_1", x, 48, square(1));
  b5 = basic_conv(L, p + "branch5x5_2", b5, 64, square(5, 1, 2));
  Image b3 = basic_conv(L, p + "branch3x3dbl_1", x, 64, square(1));
  b3 = basic_conv(L, p + "branch3x3dbl_2", b3, 96, square(3, 1, 1));
  b3 = basic_conv(L, p + "branch3x3dbl_3", b3, 96, square(3, 1, 1));
  Image bp = avgpool2d(L, p + "avg_pool", x, square(3, 1, 1));
  bp = basic_conv(L, p + "branch_pool", bp, pool_features, square(1));
  return concat_channels(L, p, {b1, b5, b3, bp});
}

Image inception_b(Layers& L, const std::string& p, Image x) {
  const Image b3 = basic_conv(L, p + "branch3x3", x, 384, square(3, 2));
  Image bd = basic_conv(L, p + "branch3x3dbl_1", x, 64, square(1));
  bd = basic_conv(L, p + "branch3x3dbl_2", bd, 96, square(3, 1, 1));
  bd = basic_conv(L, p + "branch3x3dbl_3", bd, 96, square(3, 2));
  const Image bp = maxpool2d(L, p + "max_pool", x, square(3, 2));
  return concat_channels(L, p, {b3, bd, bp});
}

Image inception_c(Layers& L, const std::string& p, Image x, int64_t c7) {
  const Image b1 = basic_conv(L, p + "branch1x1", x, 192, square(1));
  Image b7 = basic_conv(L, p + "branch7x7_1", x, c7, square(1));
  b7 = basic_conv(L, p + "branch7x7_2", b7, c7, rect(1, 7, 0, 3));
  b7 = basic_conv(L, p + "branch7x7_3", b7, 192, rect(7, 1, 3, 0));
  Image bd = basic_conv(L, p + "branch7x7dbl_1", x, c7, square(1));
  bd = basic_conv(L, p + "branch7x7dbl_2", bd, c7, rect(7, 1, 3, 0));
  bd = basic_conv(L, p + "branch7x7dbl_3", bd, c7, rect(1, 7, 0, 3));
  bd = basic_conv(L, p + "branch7x7dbl_4", bd, c7, rect(7, 1, 3, 0));
  bd = basic_conv(L, p + "branch7x7dbl_5", bd, 192, rect(1, 7, 0, 3));
  Image bp = avgpool2d(L, p + "avg_pool", x, square(3, 1, 1));
  bp = basic_conv(L, p + "branch_pool", bp, 192, square(1));
  return concat_channels(L, p, {b1, b7, bd, bp});
}

Image inception_d(Layers& L, const std::string& p, Image x) {
  Image b3 = basic_conv(L, p + "branch3x3_1", x, 192, square(1));
  b3 = basic_conv(L, p + "branch3x3_2", b3, 320, square(3, 2));
  Image b7 = basic_conv(L, p + "branch7x7x3_1", x, 192, square(1));
  b7 = basic_conv(L, p + "branch7x7x3_2", b7, 192, rect(1, 7, 0, 3));
  b7 = basic_conv(L, p + "branch7x7x3_3", b7, 192, rect(7, 1, 3, 0));
  b7 = basic_conv(L, p + "branch7x7x3_4", b7, 192, square(3, 2));
  const Image bp = maxpool2d(L, p + "max_pool", x, square(3, 2));
  return concat_channels(L, p, {b3, b7, bp});
}

Image inception_e(Layers& L, const std::string& p, Image x) {
  const Image b1 = basic_conv(L, p + "branch1x1", x, 320, square(1));
  const Image b3 = basic_conv(L, p + "branch3x3_1", x, 384, square(1));
  const Image b3a = basic_conv(L, p + "branch3x3_2a", b3, 384, rect(1, 3, 0, 1));
  const Image b3b = basic_conv(L, p + "branch3x3_2b", b3, 384, rect(3, 1, 1, 0));
  Image bd = basic_conv(L, p + "branch3x3dbl_1", x, 448, square(1));
  bd = basic_conv(L, p + "branch3x3dbl_2", bd, 384, square(3, 1, 1));
  const Image bda = basic_conv(L, p + "branch3x3dbl_3a", bd, 384, rect(1, 3, 0, 1));
  const Image bdb = basic_conv(L, p + "branch3x3dbl_3b", bd, 384, rect(3, 1, 1, 0));
  Image bp = avgpool2d(L, p + "avg_pool", x, square(3, 1, 1));
  bp = basic_conv(L, p + "branch_pool", bp, 192, square(1));
  // torchvision concatenates 2a/2b and 3a/3b first, then all four branches: one copy each.
  concat(L, p + "branch3x3_cat", b3a.elems() + b3b.elems());
  concat(L, p + "branch3x3dbl_cat", bda.elems() + bdb.elems());
  return concat_channels(L, p, {b1, b3a, b3b, bda, bdb, bp});
}

// InceptionAux: runs on Mixed_6e's output during training; its loss is added to the main one.
void inception_aux(Layers& L, const std::string& p, Image x) {
  x = avgpool2d(L, p + "avg_pool", x, square(5, 3));  // 17x17 -> 5x5
  x = basic_conv(L, p + "conv0", x, 128, square(1));
  x = basic_conv(L, p + "conv1", x, 768, square(5));  // -> 1x1
  x = adaptive_avgpool2d(L, p + "adaptive_avg_pool", x, 1, 1);
  linear(L, p + "fc", 1, x.elems(), 1000, true);
  cross_entropy(L, p + "loss", 1, 1000);
}

}  // namespace

std::vector<Layer> inception_v3() {
  Layers L;
  Image x{3, 299, 299};
  x = basic_conv(L, "Conv2d_1a_3x3", x, 32, square(3, 2));     // 149
  x = basic_conv(L, "Conv2d_2a_3x3", x, 32, square(3));        // 147
  x = basic_conv(L, "Conv2d_2b_3x3", x, 64, square(3, 1, 1));  // 147
  x = maxpool2d(L, "maxpool1", x, square(3, 2));               // 73
  x = basic_conv(L, "Conv2d_3b_1x1", x, 80, square(1));
  x = basic_conv(L, "Conv2d_4a_3x3", x, 192, square(3));  // 71
  x = maxpool2d(L, "maxpool2", x, square(3, 2));          // 35
  x = inception_a(L, "Mixed_5b.", x, 32);                 // 256 channels
  x = inception_a(L, "Mixed_5c.", x, 64);                 // 288
  x = inception_a(L, "Mixed_5d.", x, 64);                 // 288
  x = inception_b(L, "Mixed_6a.", x);                     // 768 x 17x17
  x = inception_c(L, "Mixed_6b.", x, 128);
  x = inception_c(L, "Mixed_6c.", x, 160);
  x = inception_c(L, "Mixed_6d.", x, 160);
  x = inception_c(L, "Mixed_6e.", x, 192);
  inception_aux(L, "AuxLogits.", x);
  x = inception_d(L, "Mixed_7a.", x);  // 1280 x 8x8
  x = inception_e(L, "Mixed_7b.", x);  // 2048
  x = inception_e(L, "Mixed_7c.", x);
  x = adaptive_avgpool2d(L, "avgpool", x, 1, 1);
  dropout(L, "dropout", x.elems());
  linear(L, "fc", 1, x.elems(), 1000, true);
  cross_entropy(L, "loss", 1, 1000);
  return L;
}

}  // namespace ddpsim::zoo
