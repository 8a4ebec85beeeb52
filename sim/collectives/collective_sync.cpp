#include "sim/collectives/collective_sync.h"

namespace ddpsim {

void CallBarrier::arrive_and_wait(uint64_t tag) {
  if (ranks_ <= 1) return;
  auto [it, first] = calls_.try_emplace(tag);
  if (first) {
    it->second.barrier = simgrid::s4u::Barrier::create(static_cast<unsigned>(ranks_));
    it->second.still_inside = ranks_;
  }
  // Keep a reference: other tags may rehash the map while this actor waits.
  simgrid::s4u::BarrierPtr barrier = it->second.barrier;
  barrier->wait();
  auto after = calls_.find(tag);
  if (--after->second.still_inside == 0) calls_.erase(after);
}

void LedCall::join(uint64_t tag, const std::function<void()>& lead) {
  if (ranks_ <= 1) {
    lead();
    return;
  }
  auto [it, first] = calls_.try_emplace(tag);
  if (first) {
    it->second.done = simgrid::s4u::Barrier::create(static_cast<unsigned>(ranks_));
    it->second.still_inside = ranks_;
  }
  // Keep a reference: other tags may rehash the map while this actor waits.
  simgrid::s4u::BarrierPtr done = it->second.done;
  if (++it->second.joined == ranks_) lead();
  done->wait();
  auto after = calls_.find(tag);
  if (--after->second.still_inside == 0) calls_.erase(after);
}

}  // namespace ddpsim
