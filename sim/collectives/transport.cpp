#include <cmath>
#include <cstdint>

#include "sim/collectives/traffic.h"

namespace ddpsim {
namespace {

// SimGrid refuses a null payload and copies the payload pointer into the receiver's buffer; the
// simulation needs neither, so every comm carries this token and every receive drops it here.
char payload_token;
void* receive_sink = nullptr;

uint64_t whole_bytes(double bytes) { return static_cast<uint64_t>(std::llround(bytes)); }

}  // namespace

Transport::Transport(const ClusterPlatform& platform, TrafficCounters* counters, LinkMeter* meter)
    : platform_(platform), counters_(counters), meter_(meter) {}

simgrid::s4u::CommPtr Transport::isend(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                                       const std::string& mailbox, double bytes, bool add_latency) {
  return isend(from, to, simgrid::s4u::Mailbox::by_name(mailbox), bytes, add_latency);
}

simgrid::s4u::CommPtr Transport::isend(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                                       simgrid::s4u::Mailbox* mailbox, double bytes,
                                       bool add_latency) {
  if (add_latency) {
    const double alpha = message_latency(platform_, from, to);
    if (alpha > 0) simgrid::s4u::this_actor::sleep_for(alpha);
  }
  count(from, to, bytes);
  simgrid::s4u::CommPtr comm = mailbox->put_async(&payload_token, whole_bytes(bytes));
  if (meter_) meter_->add_flow(comm, from, to, bytes);
  return comm;
}

simgrid::s4u::CommPtr Transport::irecv(simgrid::s4u::Mailbox* mailbox) {
  return mailbox->get_async<void>(&receive_sink);
}

void Transport::send_detached(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                              const std::string& mailbox, double bytes) {
  count(from, to, bytes);
  simgrid::s4u::Mailbox::by_name(mailbox)->put_init(&payload_token, whole_bytes(bytes))->detach();
  if (meter_ == nullptr) return;
  DetachedBox& box = detached_[mailbox];
  if (box.receives.empty()) {
    box.sends.push_back({from, to, bytes});
    return;
  }
  meter_->add_flow(box.receives.front(), from, to, bytes);
  box.receives.pop_front();
}

void Transport::transfer(simgrid::s4u::Host* from, simgrid::s4u::Host* to, double bytes,
                         bool counted) {
  if (counted) count(from, to, bytes);
  simgrid::s4u::CommPtr comm = simgrid::s4u::Comm::sendto_async(from, to, whole_bytes(bytes));
  if (meter_) meter_->add_flow(comm, from, to, bytes);
  comm->wait();
}

simgrid::s4u::CommPtr Transport::isend_to(simgrid::s4u::Host* from, simgrid::s4u::Host* to,
                                          double bytes, bool counted) {
  if (counted) count(from, to, bytes);
  simgrid::s4u::CommPtr comm = simgrid::s4u::Comm::sendto_async(from, to, whole_bytes(bytes));
  if (meter_) meter_->add_flow(comm, from, to, bytes);
  return comm;
}

simgrid::s4u::CommPtr Transport::irecv(const std::string& mailbox, bool takes_detached) {
  simgrid::s4u::CommPtr comm =
      simgrid::s4u::Mailbox::by_name(mailbox)->get_async<void>(&receive_sink);
  if (!takes_detached || meter_ == nullptr) return comm;
  DetachedBox& box = detached_[mailbox];
  if (box.sends.empty()) {
    box.receives.push_back(comm);
  } else {
    const DetachedSend& send = box.sends.front();
    meter_->add_flow(comm, send.from, send.to, send.bytes);
    box.sends.pop_front();
  }
  return comm;
}

void Transport::account(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                        double bytes) {
  count(from, to, bytes);
  if (meter_) meter_->add_accounted(from, to, bytes);
}

void Transport::count(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to, double bytes) {
  if (counters_ == nullptr) return;
  counters_->sent[from] += bytes;
  counters_->received[to] += bytes;
  counters_->messages += 1;
  const auto links = route_class_counts(platform_, from, to);
  for (int c = 0; c < kLinkClasses; ++c) counters_->bytes_per_class[c] += bytes * links[c];
}

}  // namespace ddpsim
