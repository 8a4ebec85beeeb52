// Runs many scenarios (uncertainty draws, tornado ends) and returns their results in order.
// SimGrid allows one engine per process, so each scenario runs in a child process: one at a
// time through simulate() with jobs <= 1, else `jobs` at a time in the process pool
// (sim/sweep/process_pool.h), each child handing its result back through a file in a private
// temporary folder. No trace, no link metering and no single-GPU baseline: draws need the
// headline figures only (samples/s, iteration time, exposed communication share).
#pragma once

#include <vector>

#include "sim/results/result.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

std::vector<SimulationResult> run_scenarios(const std::vector<Scenario>& scenarios, int jobs);

}  // namespace ddpsim
