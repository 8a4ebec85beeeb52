// Connections of the parameter servers (ps_engine.h): one direction between two hosts (a GPU's
// pushes to a server, a server's pulls to a GPU). Messages go one after the other, in order or by
// priority, sent by a short-lived actor on the sender's host that exists while the queue is not
// empty; the sender handles each landed message (it knows when its put completed).
#include "sim/engine/ps_engine.h"

namespace ddpsim {
namespace ps_detail {

void PsSync::send(Connection* c, const Message& m, bool ordered, bool push) {
  if (ordered) {
    auto at = std::find_if(c->queue.begin(), c->queue.end(),
                           [&](const Message& q) { return goes_before(m, q); });
    c->queue.insert(at, m);
  } else {
    c->queue.push_back(m);
  }
  if (c->busy) {
    c->wake->release();
    return;
  }
  c->busy = true;
  const int k = parts_[m.part].server;
  sg4::Host* from = push ? pf_.gpus[m.rank] : servers_[k].host;
  sg4::Actor::create(prefix_ + (push ? "push" : "pull"), from,
                     [this, c, push] { run_connection(c, push); });
}

void PsSync::run_connection(Connection* c, bool push) {
  Transport* transport = ctx_->transport.get();
  sg4::CommPtr comm;
  Message sending;
  std::deque<std::pair<double, Message>> delivering;  // (when, message), in order
  while (!c->queue.empty() || comm || !delivering.empty()) {
    if (!comm && !c->queue.empty()) {
      sending = c->queue.front();
      c->queue.pop_front();
      sg4::Host* gpu = pf_.gpus[sending.rank];
      sg4::Host* server = servers_[parts_[sending.part].server].host;
      comm = transport->isend_to(push ? gpu : server, push ? server : gpu, slice(sending.part));
      transferring(sending.rank, 1);
    }
    // A negative timeout would mean "forever" to SimGrid.
    const double timeout =
        delivering.empty() ? -1 : std::max(0.0, delivering.front().first - now());
    if (comm) {
      if (sg4::Comm::wait_any_for({comm}, timeout) == 0) {
        sg4::Host* gpu = pf_.gpus[sending.rank];
        sg4::Host* server = servers_[parts_[sending.part].server].host;
        delivering.emplace_back(now() + message_latency(pf_, gpu, server), sending);
        comm = nullptr;
        transferring(sending.rank, -1);
      }
    } else if (timeout > 0) {
      c->wake->acquire_timeout(timeout);  // until the next delivery, or a new message
    }
    while (!delivering.empty() && delivering.front().first <= now() + 1e-12) {
      const Message m = delivering.front().second;
      delivering.pop_front();
      if (push)
        push_landed(m);
      else
        pull_landed(m);
    }
  }
  c->busy = false;
}

}  // namespace ps_detail
}  // namespace ddpsim
