// Connections of the parameter servers (ps_engine.h): one direction between two hosts (a GPU's
// pushes to a server, a server's pulls to a GPU). Messages go one after the other, in order or by
// priority, sent by a sender actor while the queue is not empty (idle senders wait in a pool for
// the next busy connection); the sender handles each landed message (it knows when its put
// completed).
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
  if (!idle_.empty()) {
    Sender* sender = idle_.back();
    idle_.pop_back();
    sender->connection = c;
    sender->push = push;
    sender->go->release();
    return;
  }
  // A flow's route is its two hosts' (Comm::sendto_async), whichever host its actor is on.
  Sender* sender = &senders_.emplace_back();
  sender->connection = c;
  sender->push = push;
  const int k = parts_[m.part].server;
  sg4::Host* from = push ? pf_.gpus[m.rank] : servers_[k].host;
  sg4::Actor::create(prefix_ + (push ? "push" : "pull"), from,
                     [this, sender] { run_sender(sender); });
}

void PsSync::run_sender(Sender* sender) {
  while (sender->connection != nullptr) {
    run_connection(sender->connection, sender->push);
    sender->connection = nullptr;
    if (steps_over_) return;
    idle_.push_back(sender);
    sender->go->acquire();
  }
}

void PsSync::steps_over() {
  steps_over_ = true;
  std::vector<Sender*> idle;
  idle.swap(idle_);
  for (Sender* sender : idle) sender->go->release();  // connection nullptr: it ends
}

void PsSync::start_message(const Message& m, bool push, std::vector<sg4::CommPtr>* comms) {
  Transport* transport = ctx_->transport.get();
  sg4::Host* server = servers_[parts_[m.part].server].host;
  sg4::Host* cpu = pf_.node_cpus[pf_.node_of_rank(m.rank)];
  if (lanes_ && server != cpu) {
    for (int l = 0; l < g_; ++l) {
      sg4::Host* gpu = pf_.gpus[m.rank + l];
      transport->account(push ? gpu : server, push ? server : gpu, slice(m.part));
    }
    comms->push_back(transport->isend_to(push ? cpu : server, push ? server : cpu,
                                         g_ * slice(m.part), /*counted=*/false));
  } else {
    for (int l = 0; l < lane_gpus(); ++l) {
      sg4::Host* gpu = pf_.gpus[m.rank + l];
      comms->push_back(
          transport->isend_to(push ? gpu : server, push ? server : gpu, slice(m.part)));
    }
  }
  for (int l = 0; l < lane_gpus(); ++l) transferring(m.rank + l, 1);
}

void PsSync::run_connection(Connection* c, bool push) {
  std::vector<sg4::CommPtr> comms;  // the message being sent
  Message sending;
  std::deque<std::pair<double, Message>> delivering;  // (when, message), in order
  while (!c->queue.empty() || !comms.empty() || !delivering.empty()) {
    if (comms.empty() && !c->queue.empty()) {
      sending = c->queue.front();
      c->queue.pop_front();
      start_message(sending, push, &comms);
    }
    // A negative timeout would mean "forever" to SimGrid.
    const double timeout =
        delivering.empty() ? -1 : std::max(0.0, delivering.front().first - now());
    if (!comms.empty()) {
      const ssize_t done = sg4::Comm::wait_any_for(comms, timeout);
      if (done >= 0) {
        comms.erase(comms.begin() + done);
        if (comms.empty()) {
          sg4::Host* gpu = pf_.gpus[sending.rank];
          sg4::Host* server = servers_[parts_[sending.part].server].host;
          delivering.emplace_back(now() + message_latency(pf_, gpu, server), sending);
          for (int l = 0; l < lane_gpus(); ++l) transferring(sending.rank + l, -1);
        }
      }
    } else if (timeout > 0) {
      c->wake->acquire_timeout(timeout);  // until the next delivery, or a new message
    }
    while (!delivering.empty() && delivering.front().first <= now() + 1e-12) {
      const Message m = delivering.front().second;
      delivering.pop_front();
      if (push) {
        push_landed(m);
      } else {
        for (int l = 0; l < lane_gpus(); ++l) pull_landed({m.part, m.step, m.rank + l});
      }
    }
  }
  c->busy = false;
}

}  // namespace ps_detail
}  // namespace ddpsim
