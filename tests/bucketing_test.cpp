// PyTorch DDP bucket assignment (reducer.cpp compute_bucket_assignment_by_size) on ResNet-50.
#include "sim/cost/bucketing.h"

#include <gtest/gtest.h>

#include "sim/cost/iteration_plan.h"
#include "sim/model/model_zoo.h"

namespace ddpsim {
namespace {

constexpr double kMiB = 1024.0 * 1024.0;

Model resnet50() {
  Model m;
  std::string error;
  ModelSpec spec;
  spec.name = "resnet50";
  EXPECT_TRUE(build_model(spec, &m, &error)) << error;
  return m;
}

TEST(Bucketing, FirstBucketIsTheFcLayerBecauseItAloneExceedsOneMiB) {
  const Model m = resnet50();
  const auto buckets = assign_buckets(gradient_tensors(m, 4), 1 * kMiB, 25 * kMiB);
  ASSERT_GE(buckets.size(), 2u);
  // Reverse parameter order starts with fc.bias (1000) then fc.weight (2048 x 1000): the bucket
  // reaches 1 MiB only with fc.weight, and a tensor is never split.
  ASSERT_EQ(buckets[0].tensors.size(), 2u);
  EXPECT_DOUBLE_EQ(buckets[0].tensors[0].bytes, 1000 * 4);
  EXPECT_DOUBLE_EQ(buckets[0].tensors[1].bytes, 2048000.0 * 4);
  EXPECT_DOUBLE_EQ(buckets[0].bytes, 2049000.0 * 4);
}

TEST(Bucketing, SecondBucketHandCountedFromLayer4) {
  const Model m = resnet50();
  const auto buckets = assign_buckets(gradient_tensors(m, 4), 1 * kMiB, 25 * kMiB);
  // layer4.2 (bn3 4096, conv3 1048576, bn2 1024, conv2 2359296, bn1 1024, conv1 1048576) =
  // 4462592 elements; then layer4.1's bn3 (4096), conv3 (1048576), bn2 (1024) and conv2
  // (2359296) take it to 7875584 elements = 31502336 B, the first total >= 25 MiB (26214400 B).
  EXPECT_DOUBLE_EQ(buckets[1].bytes, 7875584.0 * 4);
  // layer4.2: 3 conv weights + 3 x (bn weight, bias) = 9; layer4.1: bn3 (2), conv3, bn2 (2), conv2.
  EXPECT_EQ(buckets[1].tensors.size(), 15u);
}

TEST(Bucketing, EveryClosedBucketCrossedItsLimitWithItsLastTensor) {
  const Model m = resnet50();
  for (double cap : {1 * kMiB, 5 * kMiB, 25 * kMiB, 100 * kMiB}) {
    const auto buckets = assign_buckets(gradient_tensors(m, 4), 1 * kMiB, cap);
    for (size_t b = 0; b + 1 < buckets.size(); ++b) {
      const double limit = b == 0 ? 1 * kMiB : cap;
      EXPECT_GE(buckets[b].bytes, limit) << "bucket " << b << " cap " << cap;
      EXPECT_LT(buckets[b].bytes - buckets[b].tensors.back().bytes, limit) << "bucket " << b;
    }
    EXPECT_LT(buckets.back().bytes - buckets.back().tensors.back().bytes,
              buckets.size() == 1 ? 1 * kMiB : cap);
  }
}

TEST(Bucketing, ZooModelsAreReadyInReverseParameterOrder) {
  const Model m = resnet50();
  const auto tensors = gradient_tensors(m, 4);
  ASSERT_FALSE(tensors.empty());
  EXPECT_EQ(tensors.front().layer, static_cast<int>(m.layers.size()) - 2);  // fc (then the loss)
  EXPECT_EQ(tensors.front().tensor, 1);                                     // its bias
  EXPECT_EQ(tensors.back().layer, 0);                                       // conv1.weight
  for (size_t i = 1; i < tensors.size(); ++i)
    EXPECT_TRUE(
        tensors[i].layer < tensors[i - 1].layer ||
        (tensors[i].layer == tensors[i - 1].layer && tensors[i].tensor < tensors[i - 1].tensor));
}

TEST(Bucketing, BucketsCoverEveryTensorOnceInReadyOrder) {
  const Model m = resnet50();
  const auto tensors = gradient_tensors(m, 4);
  const auto buckets = assign_buckets(tensors, 1 * kMiB, 25 * kMiB);
  size_t i = 0;
  double total = 0;
  for (const auto& bucket : buckets) {
    for (const auto& t : bucket.tensors) {
      ASSERT_LT(i, tensors.size());
      EXPECT_EQ(t.layer, tensors[i].layer);
      EXPECT_EQ(t.tensor, tensors[i].tensor);
      ++i;
    }
    total += bucket.bytes;
  }
  EXPECT_EQ(i, tensors.size());
  EXPECT_DOUBLE_EQ(total, 25557032.0 * 4);
}

// A recorded gradient order (model files) decides the buckets: here batch norm's weight is ready
// before its bias, as PyTorch's autograd finishes them, so a 1-element cap puts them in that
// order, and tensors the order leaves out come last in reverse order.
TEST(Bucketing, RecordedGradientOrderDecidesTheBuckets) {
  Model m;
  m.layers.resize(2);
  m.layers[0].param_tensors = {100};     // tensor 0: conv weight
  m.layers[1].param_tensors = {10, 10};  // tensors 1, 2: bn weight, bias
  m.gradient_order = {1, 2};             // conv weight never became ready
  const auto tensors = gradient_tensors(m, 4);
  ASSERT_EQ(tensors.size(), 3u);
  EXPECT_EQ(tensors[0].tensor, 0);
  EXPECT_EQ(tensors[0].layer, 1);
  EXPECT_EQ(tensors[1].tensor, 1);
  EXPECT_EQ(tensors[2].layer, 0);
  const auto buckets = assign_buckets(tensors, 40, 400);
  ASSERT_EQ(buckets.size(), 2u);
  EXPECT_DOUBLE_EQ(buckets[0].bytes, 40);  // bn weight alone reaches the first limit
  EXPECT_DOUBLE_EQ(buckets[1].bytes, 440);
  EXPECT_EQ(buckets[1].ready_layer, 0);
}

TEST(Bucketing, LargerCapNeverGivesMoreBuckets) {
  const Model m = resnet50();
  size_t previous = SIZE_MAX;
  for (double cap : {1 * kMiB, 2 * kMiB, 5 * kMiB, 10 * kMiB, 25 * kMiB, 50 * kMiB, 200 * kMiB}) {
    const size_t n = assign_buckets(gradient_tensors(m, 4), 1 * kMiB, cap).size();
    EXPECT_LE(n, previous) << cap;
    previous = n;
  }
  EXPECT_EQ(assign_buckets(gradient_tensors(m, 4), 1 * kMiB, 1e12).size(), 2u);
}

TEST(Bucketing, ReadyLayersNeverIncreaseAndSegmentsSumToBackward) {
  const Model m = resnet50();
  const auto buckets = assign_buckets(gradient_tensors(m, 4), 1 * kMiB, 25 * kMiB);
  for (size_t b = 1; b < buckets.size(); ++b)
    EXPECT_LE(buckets[b].ready_layer, buckets[b - 1].ready_layer);
  std::vector<LayerTime> times(m.layers.size());
  double total = 0;
  for (size_t l = 0; l < times.size(); ++l) {
    times[l].backward = 1e-3 * (l + 1);
    total += times[l].backward;
  }
  const auto segments = backward_segments(times, buckets);
  ASSERT_EQ(segments.size(), buckets.size() + 1);
  double sum = 0;
  for (double s : segments) sum += s;
  EXPECT_NEAR(sum, total, 1e-12);
  // The first segment is exactly the backward of the layers from the top down to the fc layer.
  double top = 0;
  for (size_t l = buckets[0].ready_layer; l < times.size(); ++l) top += times[l].backward;
  EXPECT_NEAR(segments[0], top, 1e-12);
}

}  // namespace
}  // namespace ddpsim
