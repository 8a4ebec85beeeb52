// The training loop of one GPU under sharded data parallelism (sync.sharding), as a SimGrid actor
// body. It replays what DeepSpeed ZeRO and PyTorch FSDP do (docs/sharding.md):
//
// zero3 / fsdp-hybrid (FSDP FULL_SHARD / HYBRID_SHARD), every micro-batch:
//   forward   each unit's parameters are all-gathered before its first layer runs and freed after
//             its last (the root unit stays gathered until its backward). The CPU runs ahead of
//             the GPU, so every all-gather is queued at the start of forward; with
//             limit_all_gathers the all-gather of the k-th unit waits until unit k-2 was freed
//             (k-3 with forward_prefetch, which gathers one unit further ahead).
//   backward  units in reverse; each is gathered again. backward_prefetch pre issues the next
//             unit's all-gather before this unit's gradient computation, post after it, none when
//             the next unit starts. After its last layer a unit is freed and its gradients
//             reduce-scattered on the other stream (hybrid: then all-reduced across nodes).
//   Then, once per step: wait for the reduce-scatters, optimizer step on the shard.
// zero1 / zero2 (DeepSpeed stages 1 and 2): forward as DDP (parameters replicated); gradients
//   reduce-scattered in the DDP buckets as backward fills them (zero2 every micro-batch, zero1
//   on the last), optimizer step on the shard, then the updated parameters all-gathered, bucket by
//   bucket, before the next forward (exposed).
// Waits for all-gathers are exposed communication; the wait for the reduce-scatters at the end of
// the step is split into straggler wait and exposed communication as in worker.h.
#pragma once

#include "sim/engine/run_context.h"
#include "sim/engine/sharded_sync.h"

namespace ddpsim {

void run_sharded_worker(RunContext* ctx, ShardedSync* sync, int rank);

}  // namespace ddpsim
