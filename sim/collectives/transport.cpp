#include <cmath>
#include <cstdint>

#include "sim/collectives/traffic.h"

namespace ddpsim {
namespace {

// SimGrid refuses a null payload and copies the payload pointer into the receiver's buffer; the
// simulation needs neither, so every comm carries this token and every receive drops it here.
char payload_token;
void* receive_sink = nullptr;

}  // namespace

Transport::Transport(const ClusterPlatform& platform, TrafficCounters* counters)
    : platform_(platform), counters_(counters) {}

simgrid::s4u::CommPtr Transport::isend(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                                       const std::string& mailbox, double bytes, bool add_latency) {
  if (add_latency) {
    const double alpha = message_latency(platform_, from, to);
    if (alpha > 0) simgrid::s4u::this_actor::sleep_for(alpha);
  }
  account(from, to, bytes);
  const auto size = static_cast<uint64_t>(std::llround(bytes));
  return simgrid::s4u::Mailbox::by_name(mailbox)->put_async(&payload_token, size);
}

simgrid::s4u::CommPtr Transport::irecv(const std::string& mailbox) {
  return simgrid::s4u::Mailbox::by_name(mailbox)->get_async<void>(&receive_sink);
}

void Transport::account(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                        double bytes) {
  if (counters_ == nullptr) return;
  counters_->sent[from] += bytes;
  counters_->received[to] += bytes;
  counters_->messages += 1;
  const auto links = route_class_counts(platform_, from, to);
  for (int c = 0; c < kLinkClasses; ++c) counters_->bytes_per_class[c] += bytes * links[c];
}

}  // namespace ddpsim
