// PyTorch DDP's gradient bucketing (torch/csrc/distributed/c10d/reducer.cpp,
// compute_bucket_assignment_by_size), as DDP calls it: parameters in reverse registration order
// (the order backward produces their gradients), size limits [first_bucket, cap, cap, ...].
// A tensor is never split: it joins the open bucket, and the bucket closes as soon as its size
// reaches the current limit, so a bucket may exceed its limit by up to one tensor.
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

// tensors: in model.parameters() order. Returns buckets in reduction order (first = first ready).
std::vector<Bucket> assign_buckets(const std::vector<GradientTensor>& tensors, double first_cap,
                                   double cap);

// All parameter tensors of a model with `bytes_per_element` bytes each, in parameter order.
std::vector<GradientTensor> gradient_tensors(const Model& model, int bytes_per_element);

}  // namespace ddpsim
