// What one communication step carries and when, as the frameworks' schedulers decide it. Plain
// functions, no SimGrid; the engine (sim/engine/) calls them.
//
// Horovod tensor fusion (horovod/common/operations.cc RunLoopOnce, controller.cc FuseResponses):
// a background thread wakes every cycle_time (it sleeps until the previous cycle's start plus
// cycle_time, or not at all when the cycle took longer), the ranks agree on the tensors every rank
// has ready (the coordination), and the agreed tensors are all-reduced in fused buffers: in ready
// order, a buffer takes the next tensors while their total stays within the threshold and closes
// at the first that does not fit (a tensor above the threshold goes alone; threshold 0 disables
// fusion).
//
// Priority scheduling (ByteScheduler, Peng et al., SOSP'19; P3, Jayarajan et al., SysML'19;
// TicTac, Hashemi et al., SysML'19): gradients of the layers nearest the input go first, because
// the next forward pass needs those parameters first; ties in their declaration order.
#pragma once

#include <vector>

namespace ddpsim {

// Groups of consecutive indices into `bytes` (ready order), each a fused buffer.
std::vector<std::vector<int>> fuse_tensors(const std::vector<double>& bytes, double threshold);

// Start of the first cycle at or after `ready`, cycles starting at `first` and every `period`.
double next_cycle_start(double ready, double first, double period);

// Horovod's coordination per cycle when not given: the ranks' readiness bit vectors are
// all-reduced (the response cache), a latency-bound exchange of 2 ceil(log2 p) messages.
double default_coordination(int ranks, double alpha);

// Priority order: true when a unit at (layer_a, order_a) goes before one at (layer_b, order_b).
inline bool before_in_priority(int layer_a, int order_a, int layer_b, int order_b) {
  return layer_a != layer_b ? layer_a < layer_b : order_a < order_b;
}

}  // namespace ddpsim
