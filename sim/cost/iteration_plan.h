// Everything about one optimizer step that does not depend on the network: per-layer compute
// times, DDP buckets, and how backward is cut into segments by the moments buckets become full.
#pragma once

#include <vector>

#include "sim/cost/bucketing.h"
#include "sim/cost/compute_cost.h"
#include "sim/cost/shard_units.h"
#include "sim/model/layer.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct IterationPlan {
  ComputePlan compute;
  std::vector<Bucket> buckets;  // reduction order
  // backward_segments[b]: backward compute between bucket b-1 and bucket b becoming ready
  // (b = 0: from the start of backward). The last entry is the tail after the last bucket
  // (layers below the first parameter). Size = buckets.size() + 1; sums to compute.backward.
  std::vector<double> backward_segments;
  double gradient_bytes = 0;  // all buckets
  // Units of communication are the buckets above; per_tensor when each holds one tensor
  // (bucket_cap 0, Horovod fusion and priority scheduling decide grouping later themselves).
  bool per_tensor = false;
  // For strategies whose forward waits per layer (priority scheduling, TensorFlow-style pulls):
  // the buckets holding each layer's tensors, and each layer's share of the optimizer step
  // (its parameters over all parameters).
  std::vector<std::vector<int>> layer_buckets;
  std::vector<double> optimizer_share;
  // Sharded data parallelism (sync.sharding): the FSDP units (shard_units.h) and the unit of each
  // layer. compute.optimizer is then the update of one GPU's shard.
  std::vector<ShardUnit> units;
  std::vector<int> unit_of_layer;
};

// With training.activation_checkpointing every layer of a repeated block (shard_units.h, per
// layer) runs its forward again in backward: compute.layers[l].backward includes it.

// True when the scenario communicates per tensor (see IterationPlan::per_tensor).
bool communicates_per_tensor(const Scenario& scenario);

// `shard_group`: the GPUs one shard of the optimizer state is split over, when the scenario
// simulated is a slice of the cluster the run stands for (symmetric scope: the cluster's
// shard_group_size, not the slice's); 0 takes the scenario's own.
IterationPlan build_iteration_plan(const Scenario& scenario, const Model& model,
                                   int shard_group = 0);

// Pure helper, exposed for tests: cuts per-layer backward times at the buckets' ready layers.
std::vector<double> backward_segments(const std::vector<LayerTime>& layers,
                                      const std::vector<Bucket>& buckets);

}  // namespace ddpsim
