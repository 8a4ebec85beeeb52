// State shared by the actors of one simulation run. SimGrid runs actors one at a time (no
// threads), so plain containers are safe here.
#pragma once

#include <memory>
#include <vector>

#include "sim/collectives/traffic.h"
#include "sim/cost/iteration_plan.h"
#include "sim/engine/compute_interference.h"
#include "sim/engine/data_feed.h"
#include "sim/engine/gradient_sync.h"
#include "sim/platform/cluster_platform.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct WorkerStats {
  Breakdown sum;                 // over measured steps
  std::vector<double> step_end;  // simulated time at the end of each step
  int steps_done = 0;            // completed steps (fewer when --max-wall stopped the run)
  Breakdown sum_done;            // `sum` as it was at the end of the last completed step
};

struct RunContext {
  const Scenario* scenario = nullptr;
  const IterationPlan* plan = nullptr;
  ClusterPlatform* platform = nullptr;
  std::unique_ptr<Transport> transport;
  TrafficCounters traffic;
  std::unique_ptr<GradientSync> sync;
  std::unique_ptr<DataFeed> feed;
  std::unique_ptr<ComputeInterference> interference;  // null when the slowdown is 1
  std::vector<WorkerStats> workers;
  std::vector<TraceEvent> trace;
  int trace_gpus = 8;  // GPUs whose measured step is traced

  int steps() const { return scenario->training.iterations; }
  int warmup() const { return scenario->training.warmup; }
  bool measured(int step) const { return step >= warmup(); }
  bool traced(int rank, int step) const { return rank < trace_gpus && step == steps() - 1; }
};

}  // namespace ddpsim
