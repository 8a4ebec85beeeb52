// All-reduce whose contents a scheduler decides while the step runs, rather than DDP's fixed
// buckets: the ranks' communication actors (their NCCL streams) run one shared sequence of
// collectives, each built from gradients every rank has ready (a collective starts only when
// every rank joined it).
//
// fusion (Horovod, sync.fusion): a background cycle every max(cycle_time, coordination); a cycle
// takes the tensors every rank had ready at its start, spends the coordination time agreeing on
// them, then appends them as fused buffers (fuse_tensors(), sim/cost/comm_schedule.h) to the
// sequence; the streams reduce the buffers in order while the next cycles run. A step meets the
// free-running cycle at an arbitrary phase; ddpsim takes its mean: the step's first cycle comes
// half a period after its first tensor is ready everywhere. The step is synchronised when every
// tensor is reduced; the optimizer follows.
//
// priority (ByteScheduler, sync.schedule: priority): tensors cut into partitions of
// sync.partition bytes; whenever a stream is free, the next collective is the partition of the
// lowest layer among those every rank has ready (the first rank to get there decides it for all,
// as a coordinator would). The next step's forward waits per layer, each layer applying its share
// of the optimizer step once its gradients are reduced. One collective runs at a time on a stream
// (sync.credit applies to parameter servers only).
#pragma once

#include <memory>

#include "sim/collectives/allreduce.h"
#include "sim/engine/gradient_sync.h"
#include "sim/engine/run_context.h"

namespace ddpsim {

// `period`: all-reduce every that many steps (local SGD), 1 for every step.
std::unique_ptr<GradientSync> make_fusion_sync(RunContext* ctx,
                                               std::unique_ptr<AllReduce> allreduce, int period);
std::unique_ptr<GradientSync> make_priority_sync(RunContext* ctx,
                                                 std::unique_ptr<AllReduce> allreduce, int period);

}  // namespace ddpsim
