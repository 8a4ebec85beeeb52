#include "sim/cost/effective_scenario.h"

#include <algorithm>

#include "sim/cost/comm_schedule.h"
#include "sim/cost/ps_partition.h"

namespace ddpsim {

int ring_channel_count(const ClusterSpec& cluster, int requested) {
  const int c = requested > 0 ? requested : (cluster.nodes > 1 ? cluster.nic.count : 1);
  return std::clamp(c, 1, cluster.gpus_per_node);
}

namespace {

// A parameter server's update cost per parameter where not stated: the optimizer's arithmetic.
double default_update_flops_per_param(Optimizer optimizer) {
  switch (optimizer) {
    case Optimizer::kSgd:
      return 2;  // w -= lr * g
    case Optimizer::kMomentum:
      return 4;  // v = mu * v + g; w -= lr * v
    case Optimizer::kAdam:
      return 12;  // two moment updates, bias correction, sqrt, divide, step
  }
  return 2;
}

}  // namespace

Scenario effective_scenario(const Scenario& stated) {
  Scenario s = stated;
  const ClusterSpec& c = s.cluster;
  s.sync.channels = ring_channel_count(c, s.sync.channels);
  FusionSpec& fusion = s.sync.fusion;
  if (fusion.enabled && fusion.coordination < 0)
    fusion.coordination =
        default_coordination(c.total_gpus(), c.nodes > 1 ? c.nic.latency : c.intra_node.latency);
  if (s.sync.strategy == SyncStrategy::kParameterServer) {
    ParameterServerSpec& ps = s.sync.ps;
    if (ps.server_nic_bandwidth <= 0) ps.server_nic_bandwidth = c.nic.bandwidth;
    if (ps.update_flops_per_param <= 0)
      ps.update_flops_per_param = default_update_flops_per_param(s.training.optimizer);
    if (s.sync.credit <= 0 && s.sync.schedule == CommSchedule::kPriority)
      s.sync.credit = 5 * byteps_partition_bytes(s.sync.partition, c.gpus_per_node);
  }
  return s;
}

}  // namespace ddpsim
