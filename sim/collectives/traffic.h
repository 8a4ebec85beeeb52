// Byte accounting for every message the simulation sends: per endpoint (sent, received) and per
// link class, so tests can check conservation and theoretical volumes, and results can report
// bytes moved per link class.
#pragma once

#include <array>
#include <simgrid/s4u.hpp>
#include <unordered_map>

#include "sim/platform/cluster_platform.h"

namespace ddpsim {

struct TrafficCounters {
  std::unordered_map<const simgrid::s4u::Host*, double> sent;
  std::unordered_map<const simgrid::s4u::Host*, double> received;
  std::array<double, kLinkClasses> bytes_per_class{};  // bytes x links of that class crossed
  double messages = 0;
};

// Sends and receives through mailboxes, adding alpha and counting bytes. The sender's actor must
// run on `from` and the receiver's on `to` (SimGrid routes a mailbox comm between the actors'
// hosts). Receives should be posted before sends (a put moves data only once matched).
class Transport {
 public:
  Transport(const ClusterPlatform& platform, TrafficCounters* counters);

  // Sleeps message_latency(from, to) in the calling actor, then starts the put (bytes rounded
  // to whole bytes: SimGrid sizes are integers). add_latency = false: the caller accounts for
  // alpha itself (flow-mode collectives add one analytic latency term per call).
  simgrid::s4u::CommPtr isend(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                              const std::string& mailbox, double bytes, bool add_latency = true);
  simgrid::s4u::CommPtr irecv(const std::string& mailbox);

  // Counts bytes without simulating them (used by analytic collectives; isend calls it too):
  // sent[from], received[to], one message, and bytes x links crossed per link class.
  void account(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, double bytes);

  const ClusterPlatform& platform() const { return platform_; }

 private:
  const ClusterPlatform& platform_;
  TrafficCounters* counters_;
};

}  // namespace ddpsim
