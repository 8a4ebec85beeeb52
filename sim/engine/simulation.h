// Runs one scenario on SimGrid and summarises it.
//
// run_simulation() creates the SimGrid engine in the calling process (SimGrid allows one per
// process). simulate() is what commands and tests call: it runs the scenario and its single-GPU
// baseline (same GPU, batch and model, no synchronisation) each in a forked process, and fills
// in the scaling efficiency. simulate_here() is the same for a process that ends after it (a
// process pool's child): the run itself needs no fork, only the baseline does, before it.
#pragma once

#include "sim/engine/trace_selection.h"
#include "sim/model/layer.h"
#include "sim/results/result.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct SimOptions {
  TraceGpus trace;       // GPUs whose last step is recorded for the timeline
  bool baseline = true;  // also run the single-GPU baseline (scaling efficiency)
  // Wall-clock budget of each run (0 = none). When it is spent every actor is stopped and the
  // result covers the steps all GPUs completed, with `partial` set.
  double max_wall_seconds = 0;
  // Per-link utilisation (result.links, bottleneck_link, the trace's link details). An observer
  // of the flows: without it every time and rate is the same, to the bit, and a 512-GPU run costs
  // about a tenth less CPU (uncertainty draws need the headline figures only).
  bool measure_links = true;
  // Stop a deterministic run once its first two measured steps agree (steady_state.h); false
  // runs every step (the tests compare the two).
  bool steady_stop = true;
};

SimulationResult run_simulation(const Scenario& scenario, const SimOptions& options);

SimulationResult simulate(const Scenario& scenario, const SimOptions& options = {});

// As simulate(), with the run in the calling process, which must not have run an engine and
// must not run another after it (a fork costs about a tenth of a small run: validate's draws).
SimulationResult simulate_here(const Scenario& scenario, const SimOptions& options = {});

// The single-GPU version of a scenario used as the scaling baseline.
Scenario single_gpu_baseline(const Scenario& scenario);

// Label from the breakdown: memory-infeasible, else data-loading-bound, communication-bound or
// straggler-bound when that wait (data wait, exposed communication, waiting for a slower GPU) is
// at least 10 % of the step (the largest wins), else compute-bound. The links that bind a
// communication-bound run are in result.bottleneck_link.
std::string bottleneck_label(const SimulationResult& result);

}  // namespace ddpsim
