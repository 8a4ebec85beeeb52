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

// A call run by one actor for all its ranks (flow-mode rings): the last rank to join runs `lead`
// (it starts every rank's flows, waits for them and sleeps the call's latency) while the others
// wait; all return once `lead` returned. The same instants as every rank joining a CallBarrier,
// sending its own flows, joining a second one and sleeping, with one blocking wait per rank
// instead of six simcalls and two comm objects per flow: the cost per call is the flows' and
// one wake-up per rank.
class LedCall {
 public:
  explicit LedCall(int ranks) : ranks_(ranks) {}

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
