#include "sim/cost/memory_fit.h"

#include <algorithm>
#include <cmath>

#include "sim/cost/compute_cost.h"
#include "sim/cost/shard_units.h"
#include "sim/data/loader_rates.h"
#include "sim/scenario/enum_names.h"

namespace ddpsim {
namespace {

constexpr double kParamBytes = 4;  // fp32 parameters, gradients and optimizer state

// fp8 (Transformer Engine) keeps fp32 master weights and bf16 copies as bf16 autocast does.
bool mixed_precision(Precision p) { return gathered_param_bytes(p) == 2; }

bool has_ddp_buckets(const Scenario& s) {
  return s.cluster.total_gpus() > 1 && s.sync.strategy != SyncStrategy::kParameterServer;
}

}  // namespace

double optimizer_state_bytes_per_param(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return 0;
    case Optimizer::kMomentum:
      return kParamBytes;  // momentum_buffer
    case Optimizer::kAdam:
      return 2 * kParamBytes;  // exp_avg and exp_avg_sq
  }
  return 0;
}

int64_t autocast_cast_params(const Model& model) {
  int64_t n = 0;
  for (const Layer& layer : model.layers)
    if (layer.kind == LayerKind::kConv || layer.kind == LayerKind::kLinear)
      n += layer.params() + layer.frozen_params();
  return n;
}

double activation_elems_per_sample(const Model& model, bool checkpointing) {
  if (!checkpointing) return model.activation_elems();
  const std::vector<ShardUnit> units = shard_units(model, 0);
  double kept = 0, recompute_peak = 0;
  for (const ShardUnit& u : units) {
    double elems = 0;
    for (int l : u.layers) elems += model.layers[l].activation_elems;
    if (u.root) {
      kept += elems;  // the layers outside the repeated blocks are not checkpointed
    } else {
      kept += layer_input_elems(model.layers[u.layers.front()]);
      recompute_peak = std::max(recompute_peak, elems);
    }
  }
  return kept + recompute_peak;
}

double gathered_in_flight_params(const Scenario& s, const Model& model) {
  const Sharding sharding = s.sync.sharding.strategy;
  if (sharding != Sharding::kZero3 && sharding != Sharding::kHybrid) return 0;
  if (shard_group_size(s) <= 1) return 0;
  const std::vector<ShardUnit> units = shard_units(model, s.sync.sharding.wrap_min_params);
  auto all = [](const ShardUnit& u) { return static_cast<double>(u.params + u.frozen_params); };
  double others = 0, pair = 0;
  for (size_t u = 1; u < units.size(); ++u) {
    others += all(units[u]);
    if (u + 1 < units.size()) pair = std::max(pair, all(units[u]) + all(units[u + 1]));
  }
  if (units.size() == 2) pair = all(units[1]);
  return all(units[0]) + (s.sync.sharding.limit_all_gathers ? pair : others);
}

namespace {

// ZeRO's accounting (Rajbhandari et al., SC'20, section 3.1): weights and gradients at the
// compute dtype, the optimizer's fp32 state with the fp32 master copy under mixed precision
// (Adam: K = 12 bytes per parameter), each divided by the GPUs of the shard group as the stage
// divides it.
void sharded_state(const Scenario& s, const Model& model, MemoryReport* m) {
  const Sharding sharding = s.sync.sharding.strategy;
  const double n = shard_group_size(s);
  const double params = static_cast<double>(model.params());
  const double frozen = static_cast<double>(model.frozen_params());
  const double width = gathered_param_bytes(s.training.precision);
  const double master = mixed_precision(s.training.precision) ? kParamBytes : 0;
  const double k = master + optimizer_state_bytes_per_param(s.training.optimizer);
  const bool all = sharding == Sharding::kZero3 || sharding == Sharding::kHybrid;
  m->weights = (params + frozen) * width / (all ? n : 1);
  m->gradients = params * width / (sharding == Sharding::kZero1 ? 1 : n);
  m->optimizer_state = params * k / n;
}

}  // namespace

MemoryReport memory_report(const Scenario& s, const Model& model) {
  MemoryReport m;
  const double params = static_cast<double>(model.params());
  const Sharding sharding = s.sync.sharding.strategy;
  double buckets = 0;
  if (sharding == Sharding::kNone) {
    const double half = mixed_precision(s.training.precision) ? 2.0 : 0.0;
    // Frozen parameters (requires_grad=False) are weights only: no gradient, no optimizer state.
    const double frozen = static_cast<double>(model.frozen_params());
    m.weights =
        (params + frozen) * kParamBytes + half * static_cast<double>(autocast_cast_params(model));
    m.gradients = params * kParamBytes;
    m.optimizer_state = params * optimizer_state_bytes_per_param(s.training.optimizer);
    buckets = has_ddp_buckets(s) ? params * kParamBytes : 0;
  } else {
    sharded_state(s, model, &m);
    if (sharding == Sharding::kZero1 || sharding == Sharding::kZero2) {
      // The bucket being reduce-scattered (DeepSpeed's reduce bucket).
      buckets = std::min(s.sync.bucket_cap, params * s.sync.gradient_bytes);
    } else {
      // Gathered units in flight and the full gradient of the unit being reduce-scattered.
      buckets = gathered_in_flight_params(s, model) * gathered_param_bytes(s.training.precision);
    }
  }
  m.in_flight = buckets;
  const double batch = s.training.batch_per_gpu;
  const double inputs = gpu_input_buffer_bytes(s.data, s.training.batch_per_gpu);
  m.workspace = kFrameworkReserveBytes + buckets + inputs;
  const double activations_per_sample =
      activation_elems_per_sample(model, s.training.activation_checkpointing) *
      activation_bytes(s.training.precision);
  m.activations = activations_per_sample * batch;
  m.total = m.weights + m.gradients + m.optimizer_state + m.workspace + m.activations;
  m.capacity = s.cluster.gpu.memory_bytes;
  m.fits = m.total <= m.capacity;

  const double per_sample = activations_per_sample + gpu_input_buffer_bytes(s.data, 1);
  const double room = m.capacity - (m.total - m.activations - inputs);
  if (room < per_sample) {
    m.max_batch_that_fits = 0;
  } else if (per_sample <= 0) {
    m.max_batch_that_fits = s.training.batch_per_gpu;  // nothing grows with the batch
  } else {
    m.max_batch_that_fits = static_cast<int>(std::min(std::floor(room / per_sample), 1e9));
  }
  return m;
}

std::vector<ShardingFit> sharding_fits(const Scenario& s, const Model& model) {
  std::vector<ShardingFit> fits;
  for (bool checkpointing : {false, true}) {
    for (Sharding sharding : {Sharding::kNone, Sharding::kZero1, Sharding::kZero2, Sharding::kZero3,
                              Sharding::kHybrid}) {
      if (sharding == Sharding::kHybrid && s.cluster.nodes == 1) continue;  // = zero3
      if (sharding != Sharding::kNone && s.cluster.total_gpus() == 1) continue;
      Scenario t = s;
      t.sync.sharding.strategy = sharding;
      t.training.activation_checkpointing = checkpointing;
      const MemoryReport m = memory_report(t, model);
      fits.push_back({sharding, checkpointing, m.total, m.fits, m.max_batch_that_fits});
    }
  }
  return fits;
}

std::string fits_with(const Scenario& s, const Model& model) {
  for (const ShardingFit& f : sharding_fits(s, model)) {
    if (!f.fits) continue;
    std::string what;
    if (f.sharding != s.sync.sharding.strategy)
      what = std::string("sync.sharding: ") + enum_name(f.sharding);
    if (f.checkpointing && !s.training.activation_checkpointing)
      what += (what.empty() ? "" : " + ") + std::string("training.activation_checkpointing");
    if (what.empty()) continue;  // the scenario's own setting: it does not fit
    return what + " (largest batch " + std::to_string(f.max_batch) + ")";
  }
  return "";
}

}  // namespace ddpsim
