#include "sim/cost/transport_rates.h"

#include <algorithm>

namespace ddpsim {

double tcp_efficiency(double nic_bandwidth, int streams, double stream_bandwidth) {
  if (nic_bandwidth <= 0) return kTcpHeaderEfficiency;
  return std::min(kTcpHeaderEfficiency, streams * stream_bandwidth / nic_bandwidth);
}

}  // namespace ddpsim
