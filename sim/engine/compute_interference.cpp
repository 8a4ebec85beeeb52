#include "sim/engine/compute_interference.h"

#include <mutex>

namespace ddpsim {

ComputeInterference::ComputeInterference(int ranks, double slowdown)
    : slowdown_(slowdown), gpus_(ranks) {
  for (Gpu& g : gpus_) {
    g.mutex = simgrid::s4u::Mutex::create();
    g.changed = simgrid::s4u::ConditionVariable::create();
  }
}

void ComputeInterference::set_communicating(int rank, bool communicating) {
  Gpu& g = gpus_[rank];
  if (g.communicating == communicating) return;
  g.communicating = communicating;
  g.changed->notify_all();
}

double ComputeInterference::compute(int rank, double seconds) {
  const double start = simgrid::s4u::Engine::get_clock();
  Gpu& g = gpus_[rank];
  double remaining = seconds;  // work left, in seconds at full speed
  std::unique_lock<simgrid::s4u::Mutex> lock(*g.mutex);
  // A change at the very end leaves a rounding residue; below this it is finished.
  const double negligible = 1e-12 * seconds;
  while (remaining > negligible) {
    const double rate = g.communicating ? 1.0 / slowdown_ : 1.0;
    const double from = simgrid::s4u::Engine::get_clock();
    if (g.changed->wait_for(lock, remaining / rate) == std::cv_status::timeout) break;
    remaining -= (simgrid::s4u::Engine::get_clock() - from) * rate;
  }
  return simgrid::s4u::Engine::get_clock() - start;
}

}  // namespace ddpsim
