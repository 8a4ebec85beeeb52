// What one simulation will cost this machine, estimated from the scenario alone before the
// SimGrid platform is built, and the guard that refuses a run that cannot finish here.
//
// SimGrid gives every actor its own stack mapping, so the kernel's vm.max_map_count (65530 by
// default, two mappings per actor) caps a process at about 32 k actors; memory grows with the
// platform and the actors; wall time grows with the platform build (quadratic in the GPUs) and
// with the simulated messages (chunked ring: 2(p-1) p messages per bucket). The cost constants
// were measured on the build machine (docs/reliability.md) and are meant to be right within a
// factor of about two: enough to refuse what would take hours, not to predict seconds.
#pragma once

#include <cstdint>
#include <string>

#include "sim/cost/iteration_plan.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct ResourceEstimate {
  int64_t gpus = 0;              // the cluster's
  int64_t simulated_gpus = 0;    // of which simulated: fewer under the symmetric scope
  std::string scope;             // which scope runs and why (sim/cost/symmetry.h)
  bool symmetric_fits = false;   // a full run could be replaced by simulation.scope: symmetric
  int64_t actors = 0;            // SimGrid actors (workers, communication streams, loaders, ...)
  double messages_per_step = 0;  // simulated flows and messages of one optimizer step
  double events_per_step = 0;    // messages + compute and latency sleeps
  double memory_bytes = 0;       // peak resident memory of the simulation process
  double platform_seconds = 0;   // building the platform and its route self-test
  double wall_seconds = 0;       // platform + all simulated steps (one run, no baseline)
  double simulated_seconds = 0;  // at least this much simulated time: every step's compute on
                                 // the slowest GPU (fixed or uniform stragglers)
  std::string sync_cost;         // how messages grow, e.g. "ring chunked: 2(p-1)p messages"
};

struct ResourceLimits {
  int64_t max_actors = 32000;   // with a guard page under every actor stack (two mappings each)
  double max_memory_bytes = 0;  // 0 = no memory limit
  double max_wall_seconds = 0;  // 0 = no time limit
  // Beyond max_actors a run drops the guard pages (one mapping per stack, see
  // configure_network_model) up to this many actors; 0 = no such room.
  int64_t max_actors_unguarded = 0;
};

// Resident memory of one actor stack without its guard page (the stacks then come from mappings
// the kernel merges and backs with huge pages): measured 42 KiB per actor at 8192 GPUs.
constexpr double kUnguardedStackBytes = 48.0 * 1024;

// The simulated clock is a double in seconds: beyond 1e9 s (31.7 years) a step of one
// microsecond no longer adds up exactly. A run that would go further is refused before it
// starts, and one that gets there anyway is stopped and reported as what it is.
constexpr double kMaxSimulatedSeconds = 1e9;
// The message: `before_run` for the estimate, else for a clock that got there.
std::string simulated_clock_overflow(double simulated_seconds, bool before_run);

// Pure: depends on the scenario and its iteration plan (bucket count) only. Under the symmetric
// scope (decide_scope) it estimates the slice that runs. Throws InputError where
// simulation.scope forces symmetric on a scenario it does not fit. `headline_only`: a run
// without links or trace (an uncertainty draw, simulate --headline-only), which folds at any
// size and merges a node's parameter-server flows where that is exact.
ResourceEstimate estimate_resources(const Scenario& scenario, const IterationPlan& plan,
                                    bool headline_only = false);

// The limits of this machine: actors from /proc/sys/vm/max_map_count, memory from the physical
// memory, and `max_wall_seconds` as given.
ResourceLimits machine_limits(double max_wall_seconds);

// Throws InputError located at the scenario file when the estimate exceeds a limit. The message
// names the limit, the estimate, and the cheaper mode (fewer GPUs, flow instead of chunked mode,
// an analytic alpha-beta table, a longer --max-wall), or for the simulated clock the times that
// make it overflow.
void check_resources(const Scenario& scenario, const ResourceEstimate& estimate,
                     const ResourceLimits& limits);

}  // namespace ddpsim
