#include "sim/cost/memory_fit.h"

#include <algorithm>
#include <cmath>

#include "sim/cost/compute_cost.h"
#include "sim/data/loader_rates.h"

namespace ddpsim {
namespace {

constexpr double kParamBytes = 4;  // fp32 parameters, gradients and optimizer state

// fp8 (Transformer Engine) keeps fp32 master weights and bf16 copies as bf16 autocast does.
bool mixed_precision(Precision p) {
  switch (p) {
    case Precision::kFp16:
    case Precision::kBf16:
    case Precision::kFp8:
      return true;
    case Precision::kFp32:
    case Precision::kTf32:
      return false;
  }
  return false;
}

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

MemoryReport memory_report(const Scenario& s, const Model& model) {
  MemoryReport m;
  const double params = static_cast<double>(model.params());
  const double half = mixed_precision(s.training.precision) ? 2.0 : 0.0;
  // Frozen parameters (requires_grad=False) are weights only: no gradient, no optimizer state.
  const double frozen = static_cast<double>(model.frozen_params());
  m.weights =
      (params + frozen) * kParamBytes + half * static_cast<double>(autocast_cast_params(model));
  m.gradients = params * kParamBytes;
  m.optimizer_state = params * optimizer_state_bytes_per_param(s.training.optimizer);
  const double buckets = has_ddp_buckets(s) ? params * kParamBytes : 0;
  const double batch = s.training.batch_per_gpu;
  const double inputs = gpu_input_buffer_bytes(s.data, s.training.batch_per_gpu);
  m.workspace = kFrameworkReserveBytes + buckets + inputs;
  const double activations_per_sample =
      model.activation_elems() * activation_bytes(s.training.precision);
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

}  // namespace ddpsim
