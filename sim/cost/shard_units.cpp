#include "sim/cost/shard_units.h"

#include <algorithm>
#include <cctype>
#include <map>

namespace ddpsim {

std::string block_of(const std::string& name) {
  size_t start = 0;
  while (start < name.size()) {
    size_t end = name.find('.', start);
    if (end == std::string::npos) end = name.size();
    bool numeric = end > start;
    for (size_t i = start; i < end; ++i)
      if (!std::isdigit(static_cast<unsigned char>(name[i]))) numeric = false;
    if (numeric) return name.substr(0, end);
    start = end + 1;
  }
  return "";
}

std::vector<ShardUnit> shard_units(const Model& model, int64_t wrap_min_params) {
  std::vector<ShardUnit> units(1);
  units[0].name = "root";
  units[0].root = true;
  auto add = [&](ShardUnit* u, int l) {
    u->layers.push_back(l);
    u->params += model.layers[l].params();
    u->frozen_params += model.layers[l].frozen_params();
    u->tensors += static_cast<int>(model.layers[l].param_tensors.size());
  };
  const int n = static_cast<int>(model.layers.size());
  if (wrap_min_params <= 0) {
    std::map<std::string, size_t> index;  // block name -> unit
    for (int l = 0; l < n; ++l) {
      const std::string block = block_of(model.layers[l].name);
      if (block.empty()) {
        add(&units[0], l);
        continue;
      }
      auto [it, fresh] = index.emplace(block, units.size());
      if (fresh) {
        units.push_back({});
        units.back().name = block;
      }
      add(&units[it->second], l);
    }
  } else {
    ShardUnit open;
    for (int l = 0; l < n; ++l) {
      if (open.layers.empty()) open.name = model.layers[l].name;
      add(&open, l);
      if (open.params + open.frozen_params >= wrap_min_params) {
        units.push_back(open);
        open = {};
      }
    }
    for (int l : open.layers) add(&units[0], l);
  }
  // Units that carry no parameters gather nothing: their layers run with the root's.
  std::vector<ShardUnit> kept{units[0]};
  for (size_t u = 1; u < units.size(); ++u) {
    if (units[u].params + units[u].frozen_params > 0)
      kept.push_back(units[u]);
    else
      for (int l : units[u].layers) kept[0].layers.push_back(l);
  }
  std::sort(kept[0].layers.begin(), kept[0].layers.end());
  ShardUnit root;
  root.name = "root";
  root.root = true;
  for (int l : kept[0].layers) add(&root, l);
  kept[0] = root;
  return kept;
}

double layer_input_elems(const Layer& layer) {
  const auto& d = layer.dims;
  auto dim = [&](size_t i) { return i < d.size() ? static_cast<double>(d[i]) : 0.0; };
  switch (layer.kind) {
    case LayerKind::kConv:
      return dim(0) * dim(1) * dim(2);
    case LayerKind::kLinear:
      return dim(0) * dim(1);
    case LayerKind::kAttention:
      return dim(0) * dim(1) * dim(2);  // the queries; keys and values are as many or fewer
    case LayerKind::kEmbedding:
      return dim(0);  // token ids
    case LayerKind::kPool:
      return dim(0) * dim(1) * dim(2);
    case LayerKind::kLoss:
      return dim(0) * dim(1);
    default:
      return dim(0);  // norms, activations and the rest: their element count
  }
}

int shard_group_size(const Scenario& s) {
  switch (s.sync.sharding.strategy) {
    case Sharding::kNone:
      return 1;
    case Sharding::kHybrid:
      return s.cluster.gpus_per_node;
    default:
      return s.cluster.total_gpus();
  }
}

int gathered_param_bytes(Precision precision) {
  return precision == Precision::kFp32 || precision == Precision::kTf32 ? 4 : 2;
}

}  // namespace ddpsim
