// State shared by the actors of one simulation run. SimGrid runs actors one at a time (no
// threads), so plain containers are safe here.
#pragma once

#include <memory>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/traffic.h"
#include "sim/cost/iteration_plan.h"
#include "sim/engine/compute_interference.h"
#include "sim/engine/data_feed.h"
#include "sim/engine/gradient_sync.h"
#include "sim/platform/cluster_platform.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct WorkerStats {
  Breakdown sum;                    // over measured steps
  std::vector<double> step_end;     // simulated time at the end of each step
  std::vector<double> grads_ready;  // when its last bucket of each step was ready (-1: not yet)
  int steps_done = 0;               // completed steps (fewer when --max-wall stopped the run)
  Breakdown sum_done;               // `sum` as it was at the end of the last completed step
};

struct RunContext {
  const Scenario* scenario = nullptr;
  const IterationPlan* plan = nullptr;
  ClusterPlatform* platform = nullptr;
  std::unique_ptr<Transport> transport;
  TrafficCounters traffic;
  std::unique_ptr<GradientSync> sync;
  // DDP's per-forward buffer broadcast (sync.buffer_broadcast): a collective of its own, run by
  // the workers before each forward; null when there is none.
  std::unique_ptr<AllReduce> buffer_broadcast;
  std::unique_ptr<DataFeed> feed;
  std::unique_ptr<ComputeInterference> interference;  // null when the slowdown is 1
  std::unique_ptr<LinkMeter> meter;                   // per-link use over the measured steps
  std::vector<WorkerStats> workers;
  // Per step: the latest grads_ready over the GPUs that reported it, and how many did.
  std::vector<double> last_grads_ready;
  std::vector<int> grads_reported;
  std::vector<TraceEvent> trace;
  std::vector<bool> traced_ranks;  // GPUs whose last step is traced
  std::vector<int> finished;       // per step: GPUs that finished it

  int steps() const { return scenario->training.iterations; }
  int warmup() const { return scenario->training.warmup; }
  bool measured(int step) const { return step >= warmup(); }
  bool traced(int rank, int step) const {
    return step == steps() - 1 && rank < static_cast<int>(traced_ranks.size()) &&
           traced_ranks[rank];
  }
  // Called by each worker at the end of each step: the measured window opens when the last GPU
  // finished its warmup and closes when the last GPU finished its last step; the traced (last)
  // step begins, at the earliest, when the first GPU finished the step before it.
  void step_finished(int step) {
    if (finished.size() < static_cast<size_t>(steps())) finished.resize(steps(), 0);
    const int done = ++finished[step];
    if (!meter) return;
    if (done == 1 && step == steps() - 2) meter->keep_details_from_now();
    if (done < static_cast<int>(workers.size())) return;
    if (step == warmup() - 1) meter->open_window();
    if (step == steps() - 1) meter->close_window();
  }
};

}  // namespace ddpsim
