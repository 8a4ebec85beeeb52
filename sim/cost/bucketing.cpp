#include "sim/cost/bucketing.h"

#include <algorithm>

namespace ddpsim {

std::vector<Bucket> assign_buckets(const std::vector<GradientTensor>& tensors, double first_cap,
                                   double cap) {
  std::vector<Bucket> buckets;
  if (cap <= 0) {  // per-tensor communication: every tensor is its own unit
    for (const GradientTensor& t : tensors) buckets.push_back(Bucket{{t}, t.bytes, t.layer});
    return buckets;
  }
  Bucket open;
  double limit = first_cap;
  for (const GradientTensor& t : tensors) {
    if (open.tensors.empty()) open.ready_layer = t.layer;
    open.tensors.push_back(t);
    open.bytes += t.bytes;
    open.ready_layer = std::min(open.ready_layer, t.layer);
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
  std::vector<GradientTensor> all;  // layer order
  for (size_t l = 0; l < model.layers.size(); ++l) {
    const auto& tensors = model.layers[l].param_tensors;
    for (size_t t = 0; t < tensors.size(); ++t)
      all.push_back({static_cast<int>(l), static_cast<int>(t),
                     static_cast<double>(tensors[t]) * bytes_per_element});
  }
  if (model.gradient_order.empty()) return {all.rbegin(), all.rend()};
  // The loader checked the order is a permutation of a subset; tensors it does not name (never
  // used by the recorded backward) become ready last, in reverse order.
  std::vector<GradientTensor> ordered;
  std::vector<bool> listed(all.size(), false);
  for (int i : model.gradient_order) {
    ordered.push_back(all[static_cast<size_t>(i)]);
    listed[static_cast<size_t>(i)] = true;
  }
  for (size_t i = all.size(); i-- > 0;)
    if (!listed[i]) ordered.push_back(all[i]);
  return ordered;
}

}  // namespace ddpsim
