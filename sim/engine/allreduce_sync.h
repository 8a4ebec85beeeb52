// PyTorch DDP-style synchronisation: one communication actor per GPU (its NCCL stream) reduces
// buckets in order, each as soon as backward has filled it, with the configured all-reduce.
// Local SGD reduces the full model every `period` steps instead of every step.
#pragma once

#include <memory>

#include "sim/collectives/allreduce.h"
#include "sim/engine/gradient_sync.h"
#include "sim/engine/run_context.h"

namespace ddpsim {

// Spawns the communication actors. `period` = 1 for DDP.
std::unique_ptr<GradientSync> make_allreduce_sync(RunContext* ctx,
                                                  std::unique_ptr<AllReduce> allreduce, int period);

}  // namespace ddpsim
