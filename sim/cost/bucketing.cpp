#include "sim/cost/bucketing.h"

#include <algorithm>

namespace ddpsim {

std::vector<Bucket> assign_buckets(const std::vector<GradientTensor>& tensors, double first_cap,
                                   double cap) {
  std::vector<Bucket> buckets;
  Bucket open;
  double limit = first_cap;
  for (auto it = tensors.rbegin(); it != tensors.rend(); ++it) {
    if (open.tensors.empty()) open.ready_layer = it->layer;
    open.tensors.push_back(*it);
    open.bytes += it->bytes;
    open.ready_layer = std::min(open.ready_layer, it->layer);
    if (open.bytes >= limit) {
      buckets.push_back(std::move(open));
      open = Bucket{};
      limit = cap;
    }
  }
  if (!open.tensors.empty()) buckets.push_back(std::move(open));
  return buckets;
}

std::vector<GradientTensor> gradient_tensors(const Model& model, int bytes_per_element) {
  std::vector<GradientTensor> out;
  for (size_t l = 0; l < model.layers.size(); ++l) {
    const auto& tensors = model.layers[l].param_tensors;
    for (size_t t = 0; t < tensors.size(); ++t)
      out.push_back({static_cast<int>(l), static_cast<int>(t),
                     static_cast<double>(tensors[t]) * bytes_per_element});
  }
  return out;
}

}  // namespace ddpsim
