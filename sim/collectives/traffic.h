// Byte accounting for every message the simulation sends: per endpoint (sent, received) and per
// link class, so tests can check conservation and theoretical volumes, and results can report
// bytes moved per link class.
#pragma once

#include <array>
#include <deque>
#include <simgrid/s4u.hpp>
#include <string>
#include <unordered_map>

#include "sim/collectives/link_meter.h"
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
// hosts). Receives should be posted before sends (a put moves data only once matched). Every
// flow is registered with the link meter, when there is one (link_meter.h).
class Transport {
 public:
  Transport(const ClusterPlatform& platform, TrafficCounters* counters, LinkMeter* meter = nullptr);

  // Sleeps message_latency(from, to) in the calling actor, then starts the put (bytes rounded
  // to whole bytes: SimGrid sizes are integers). add_latency = false: the caller accounts for
  // alpha itself (flow-mode collectives add one analytic latency term per call).
  simgrid::s4u::CommPtr isend(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                              const std::string& mailbox, double bytes, bool add_latency = true);
  // The same on a mailbox looked up once by the caller (Mailbox::by_name searches every
  // mailbox of the run by its name: hot for a ring's flows).
  simgrid::s4u::CommPtr isend(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                              simgrid::s4u::Mailbox* mailbox, double bytes,
                              bool add_latency = true);
  // takes_detached: the mailbox carries only send_detached puts, and this receive takes one.
  simgrid::s4u::CommPtr irecv(const std::string& mailbox, bool takes_detached = false);
  // A receive on a mailbox looked up once by the caller, not carrying detached puts.
  simgrid::s4u::CommPtr irecv(simgrid::s4u::Mailbox* mailbox);
  // A detached put (it moves on after its sender ends; the receiver gets it whenever it looks):
  // counted like isend, no alpha. Its receives must say takes_detached: a detached put has no
  // handle, so the link meter follows the receive it pairs with (mailboxes match in order).
  void send_detached(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                     const std::string& mailbox, double bytes);
  // A host-to-host transfer (no actors on either side), waited for; counted only when `counted`
  // (the link meter sees it whatever its window).
  void transfer(simgrid::s4u::Host* from, simgrid::s4u::Host* to, double bytes, bool counted);
  // The same, started and returned (no alpha; counted only when `counted`): for streams whose
  // receiver is not an actor (a PS connection delivers by itself), so no receiving actor waits,
  // or is killed at the end, for it.
  simgrid::s4u::CommPtr isend_to(simgrid::s4u::Host* from, simgrid::s4u::Host* to, double bytes,
                                 bool counted = true);

  // Counts bytes without simulating them (analytic collectives): sent[from], received[to], one
  // message, and bytes x links crossed per link class; the link meter flags them as accounted.
  void account(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, double bytes);

  const ClusterPlatform& platform() const { return platform_; }

 private:
  void count(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, double bytes);

  struct DetachedSend {
    const simgrid::s4u::Host* from;
    const simgrid::s4u::Host* to;
    double bytes;
  };
  // Per mailbox of detached puts (kept only with a meter): the side that came first waits here
  // for its partner.
  struct DetachedBox {
    std::deque<DetachedSend> sends;
    std::deque<simgrid::s4u::CommPtr> receives;
  };

  const ClusterPlatform& platform_;
  TrafficCounters* counters_;
  LinkMeter* meter_;
  std::unordered_map<std::string, DetachedBox> detached_;
};

}  // namespace ddpsim
