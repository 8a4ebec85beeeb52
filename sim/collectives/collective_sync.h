// Per-call rendezvous of the p ranks of a collective. Ranks call collectives in the same order but
// reach them at different times; a call's flows must not start before its last rank joined (in a
// ring the late rank's data still has to traverse every edge), so every rank waits here first.
// One SimGrid barrier per tag, created by the first arrival and dropped by the last departure,
// so calls with different tags may be in flight at once (a rank that finished call k may already
// wait in call k+1).
#pragma once

#include <cstdint>
#include <functional>
#include <simgrid/s4u.hpp>
#include <unordered_map>

namespace ddpsim {

class CallBarrier {
 public:
  explicit CallBarrier(int ranks) : ranks_(ranks) {}

  // Blocks the calling actor until `ranks` actors called it with this tag.
  void arrive_and_wait(uint64_t tag);

 private:
  struct Call {
    simgrid::s4u::BarrierPtr barrier;
    int still_inside = 0;
  };
  int ranks_;
  std::unordered_map<uint64_t, Call> calls_;  // actors run one at a time: no lock needed
};

// The end of a call whose ranks may leave together only after something one of them does for
// all (flow-mode rings: the call's latency, slept once): the last rank to join runs `lead` while
// the others wait; all return once it returned. The same instants as every rank joining a
// CallBarrier and then doing `lead` itself, with one wake-up per rank instead of two.
class LedCall {
 public:
  explicit LedCall(int ranks) : ranks_(ranks) {}

  // Every rank of a call passes the same tag, which no other call in progress uses.
  void join(uint64_t tag, const std::function<void()>& lead);

 private:
  struct Call {
    simgrid::s4u::BarrierPtr done;
    int joined = 0;
    int still_inside = 0;
  };
  int ranks_;
  std::unordered_map<uint64_t, Call> calls_;  // actors run one at a time: no lock needed
};

}  // namespace ddpsim
