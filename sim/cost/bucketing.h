// PyTorch DDP's gradient bucketing (torch/csrc/distributed/c10d/reducer.cpp,
// compute_bucket_assignment_by_size), as DDP uses it from its second iteration on: the
// parameters in the order their gradients became ready in the first backward (Model's
// gradient_order; reverse registration order when the model does not say), size limits
// [first_bucket, cap, cap, ...]. A tensor is never split: it joins the open bucket, and the
// bucket closes as soon as its size reaches the current limit, so a bucket may exceed its limit
// by up to one tensor.
#pragma once

#include <vector>

#include "sim/model/layer.h"

namespace ddpsim {

struct GradientTensor {
  int layer = 0;   // index in Model::layers
  int tensor = 0;  // index in Layer::param_tensors
  double bytes = 0;
};

struct Bucket {
  std::vector<GradientTensor> tensors;  // in the order they were added (gradient-ready order)
  double bytes = 0;
  int ready_layer = 0;  // the bucket is full once this layer's backward is done (lowest index)
};

// tensors: in gradient-ready order. Returns buckets in reduction order (first = first ready).
// cap <= 0: one bucket per tensor (per-tensor communication, Horovod without fusion, TensorFlow's
// parameter servers per variable); first_cap is then unused.
std::vector<Bucket> assign_buckets(const std::vector<GradientTensor>& tensors, double first_cap,
                                   double cap);

// All trainable parameter tensors of a model with `bytes_per_element` bytes each, in the order
// backward finishes their gradients (Model::gradient_order, else reverse parameter order).
std::vector<GradientTensor> gradient_tensors(const Model& model, int bytes_per_element);

}  // namespace ddpsim
