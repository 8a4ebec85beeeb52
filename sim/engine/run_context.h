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

// Appends `event` to `trace` as part of `step` (a run that may stop early keeps its reported
// step's events only, sim/engine/steady_state.h; the trace's "step" argument is set again for
// the events kept, trace_details.cpp).
inline void push_step_event(std::vector<TraceEvent>& trace, TraceEvent event, int step) {
  event.numbers["step"] = step;
  trace.push_back(std::move(event));
}

struct WorkerStats {
  Breakdown sum;                    // over measured steps
  std::vector<double> step_end;     // simulated time at the end of each step
  std::vector<double> grads_ready;  // when its last bucket of each step was ready (-1: not yet)
  int steps_done = 0;               // completed steps (fewer when --max-wall stopped the run)
  Breakdown sum_done;               // `sum` as it was at the end of the last completed step
  // Only when the run may stop at a steady state (sim/engine/steady_state.h): `sum` and the
  // communication busy time at the end of each step up to the candidate.
  std::vector<Breakdown> sum_at_end;
  std::vector<double> busy_at_end;
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
  // The run reports headline figures only under simulation.scope auto (an uncertainty or
  // validation draw): a parameter server may send a node's GPUs' slices as one flow (ps_engine.h).
  bool node_lanes = false;
  bool node_lanes_ran = false;  // set by the parameter server when it used them
  std::vector<WorkerStats> workers;
  // Per step: the latest grads_ready over the GPUs that reported it, and how many did.
  std::vector<double> last_grads_ready;
  std::vector<int> grads_reported;
  std::vector<TraceEvent> trace;
  std::vector<bool> traced_ranks;  // GPUs whose last step is traced
  std::vector<int> finished;       // per step: GPUs that finished it
  // Steady state (sim/engine/steady_state.h): the step after which the run may stop (-1: it
  // runs every step), the step it stopped after (-1: it did not), and the traffic counters at
  // the end of the step before the candidate and at the stop (every GPU done with it).
  int steady_candidate = -1;
  int stopped_after = -1;
  TrafficCounters traffic_before_candidate, traffic_at_stop;

  int steps() const { return scenario->training.iterations; }
  // The steps run: all of them, or up to the steady step.
  int run_steps() const { return stopped_after >= 0 ? stopped_after + 1 : steps(); }
  int warmup() const { return scenario->training.warmup; }
  bool measured(int step) const { return step >= warmup(); }
  bool traced(int rank, int step) const {
    return (step == steps() - 1 || step == steady_candidate) &&
           rank < static_cast<int>(traced_ranks.size()) && traced_ranks[rank];
  }
  // Called by each worker at the end of each step: the measured window opens when the last GPU
  // finished its warmup and closes when the last GPU finished its last step; the traced (last)
  // step begins, at the earliest, when the first GPU finished the step before it.
  // A run that may stop at a steady state also keeps the details of its candidate step, and
  // stops (every other actor killed) when that step repeats the one before it.
  void step_finished(int rank, int step);
};

}  // namespace ddpsim
