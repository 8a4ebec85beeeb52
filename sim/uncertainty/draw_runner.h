// Runs many scenarios (uncertainty draws, tornado ends) and returns their results in order.
// SimGrid allows one engine per process, so each scenario runs in a child process: one at a
// time through simulate() with jobs <= 1, else `jobs` at a time in the process pool
// (sim/sweep/process_pool.h), each child handing its result back through a file in a private
// temporary folder. No trace, no link metering and no single-GPU baseline: draws need the
// headline figures only (samples/s, iteration time, exposed communication share).
#pragma once

#include <string>
#include <vector>

#include "sim/results/result.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

// `progress`: the label of a progress line on stderr (runs done of the total, time left from
// each run's estimated cost, sim/sweep/run_progress.h); "" for none.
std::vector<SimulationResult> run_scenarios(const std::vector<Scenario>& scenarios, int jobs,
                                            const std::string& progress = "");

// One run's estimated wall time in a forked child (the resource guard's estimate,
// sim/cost/resource_estimate.h, and the run's fixed cost); `headline_only` for a draw (no links,
// no trace: it may fold or merge flows). 0 when the scenario cannot be estimated (its run will
// say why).
double estimated_run_seconds(const Scenario& scenario, bool headline_only = false);

}  // namespace ddpsim
