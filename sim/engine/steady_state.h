// Stopping a deterministic run once its step repeats (issue 33). A job with nothing drawn (no
// drawn stragglers, no first epoch, synchronous all-reduce, sharding or parameter servers with
// eager pulls, no priority schedule) settles after its warm-up. When every GPU's first two measured
// steps (warmup and warmup + 1) agree to 1e-9 of the step, in duration, every breakdown item and
// communication time, and the input pipeline cannot drift (no loader, one faster than training, or
// one already starving every GPU in both steps), the later steps would repeat them: the run stops
// after step warmup + 1, its averages are the two measured steps' (the full run's to 1e-9,
// tests/steady_state_test.cpp), the trace shows that step and the notes say so. Anything else
// runs every step, byte for byte as before.
#pragma once

#include <string>

#include "sim/scenario/scenario.h"

namespace ddpsim {

struct RunContext;

// The step after which the run may stop (warmup + 1), or -1 when it must run every step:
// something drawn or drifting, or no later step to save. A --max-wall watcher changes nothing:
// whichever stops the run first, the other never does.
int steady_stop_candidate(const Scenario& scenario);

// At the end of `step` (every GPU done with it): true when the steps step - 1 and step agree on
// every GPU as above. Needs the per-step snapshots RunContext keeps for the candidate step.
bool steps_agree(const RunContext& ctx, int step);

// The notes' line for a run stopped after `step` of `steps`.
std::string steady_state_note(int step, int steps);

}  // namespace ddpsim
