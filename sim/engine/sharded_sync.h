// Sharded data parallelism as the workers replay it (sync.sharding, docs/sharding.md). FSDP issues
// its all-gathers and reduce-scatters on two CUDA streams, but both go to one NCCL communicator
// (the shard group's process group), and NCCL runs the operations of a communicator one after
// the other in the order they were issued. So each rank has one FIFO for the shard group; for
// fsdp-hybrid a second one, the communicator across nodes, runs the all-reduce of each gradient
// shard once its reduce-scatter is done, while the next all-gathers proceed. Every rank issues
// the same operations in the same order, so the n-th operation of a FIFO is the same collective
// call on every rank. The worker loop (sharded_worker.h) decides when each operation is issued
// and what waits for it.
#pragma once

#include <memory>
#include <simgrid/s4u.hpp>
#include <string>

#include "sim/engine/gradient_sync.h"
#include "sim/engine/run_context.h"

namespace ddpsim {

class ShardedSync : public GradientSync {
 public:
  enum class Op {
    kAllGather,      // bytes = the gathered buffer (the unit's parameters at the compute dtype)
    kReduceScatter,  // bytes = the unit's (or bucket's) gradients before scattering
    kStop,           // ends the stream's actor (after the worker's last step)
  };

  // Released once the operation is done; wait() may be called any number of times.
  using Done = simgrid::s4u::SemaphorePtr;

  // Queues `op` on the rank's FIFO. It starts once the operations before it are done and, when
  // `gate` is given, once the gate was released (FSDP's rate limiter: the CPU does not issue an
  // all-gather before the unit gathered two before it was freed, nor anything after it). `unit`
  // indexes bucket_reports(). A reduce-scatter is done when its shard was also all-reduced
  // across nodes (fsdp-hybrid).
  virtual Done issue(int rank, Op op, double bytes, int step, int unit, const std::string& label,
                     simgrid::s4u::SemaphorePtr gate = nullptr) = 0;
  // Blocks until the operation is done.
  static void wait(const Done& done);

  // GradientSync's bucket interface is not used: the sharded worker issues its own operations.
  void bucket_ready(int, int, int) override {}
  void wait_synchronised(int, int) override {}
};

// The streams of every rank, with the collectives the scenario's sharding needs (world or
// node-local all-gather and reduce-scatter, rail all-reduce of shards for fsdp-hybrid).
std::unique_ptr<ShardedSync> make_sharded_sync(RunContext* ctx);

}  // namespace ddpsim
