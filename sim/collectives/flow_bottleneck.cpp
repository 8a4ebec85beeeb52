#include "sim/collectives/flow_bottleneck.h"

#include <algorithm>
#include <unordered_map>

namespace ddpsim {

double seconds_per_byte(const ClusterPlatform& platform, const std::vector<FlowShare>& flows) {
  std::unordered_map<const simgrid::s4u::Link*, double> load;
  for (const FlowShare& f : flows)
    for (const simgrid::s4u::Link* link : expected_route(platform, f.from, f.to))
      load[link] += f.share;
  double worst = 0;
  for (const auto& [link, bytes] : load) worst = std::max(worst, bytes / link->get_bandwidth());
  return worst;
}

}  // namespace ddpsim
