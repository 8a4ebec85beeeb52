// The training loop of one GPU, as a SimGrid actor body: per step, for each micro-batch, wait for
// data, forward, backward (announcing buckets as they fill on the last micro-batch), then wait for
// synchronisation and run the optimizer. Compute is sleep_for of the planned times times the GPU's
// straggler factor. When the strategy gates the forward pass (GradientSync::gates_forward), the
// next step's forward runs layer by layer, each waiting for its own parameters.
//
// Waits for synchronisation are split in two (Breakdown): the part before the last GPU had
// produced the gradients the wait depends on is straggler_wait, the rest exposed_comm.
#pragma once

#include "sim/engine/run_context.h"

namespace ddpsim {

void run_worker(RunContext* ctx, int rank);

}  // namespace ddpsim
