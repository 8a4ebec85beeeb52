#include "sim/scenario/effective_scenario.h"

#include <algorithm>

namespace ddpsim {

int ring_channel_count(const ClusterSpec& cluster, int requested) {
  const int c = requested > 0 ? requested : (cluster.nodes > 1 ? cluster.nic.count : 1);
  return std::clamp(c, 1, cluster.gpus_per_node);
}

Scenario effective_scenario(const Scenario& stated) {
  Scenario s = stated;
  s.sync.channels = ring_channel_count(s.cluster, s.sync.channels);
  ParameterServerSpec& ps = s.sync.ps;
  if (s.sync.strategy == SyncStrategy::kParameterServer && ps.server_nic_bandwidth <= 0)
    ps.server_nic_bandwidth = s.cluster.nic.bandwidth;
  return s;
}

}  // namespace ddpsim
