// The pieces every training loop shares (worker.cpp, sharded_worker.cpp): compute that books
// its time, announcing that a GPU's gradients are ready, and booking a wait.
#pragma once

#include <string>

#include "sim/engine/run_context.h"

namespace ddpsim {

double now();

// Runs `seconds` of compute (longer where it overlaps this GPU's communication and an overlap
// slowdown applies), adding the time taken to *bucket and to the trace when traced.
void compute(RunContext* ctx, int rank, int step, double seconds, double* bucket,
             const std::string& name);

// Waits for the loader's micro-batch, booking the wait as data_wait (and tracing it).
void wait_for_batch(RunContext* ctx, int rank, int step, int micro);

// This GPU's last gradient of `step` is ready: the straggler rule of book_wait needs the latest
// such moment over all GPUs.
void report_grads_ready(RunContext* ctx, int rank, int step);

// Books a synchronisation wait that began at `start` and ended now. The part before the last GPU
// had produced the gradients this wait depends on (step `peer_step`; < 0: none) is waiting for a
// slower peer (straggler_wait): no bandwidth would have shortened it. The rest is exposed
// communication. The rule is the same for every strategy.
void book_wait(RunContext* ctx, int rank, int step, int peer_step, double start,
               const std::string& name);

}  // namespace ddpsim
