// Sharded data parallelism as the workers replay it (sync.sharding, docs/sharding.md): each
// rank has two communication streams, as PyTorch FSDP has: the unshard stream runs all-gathers,
// the reduce stream reduce-scatters (and, for fsdp-hybrid, the all-reduce of the gradient shard
// across nodes after each one). Every rank issues the same operations on each stream in the same
// order, so the n-th operation of a stream is the same collective call on every rank. The worker
// loop (sharded_worker.h) decides when each operation is issued and what waits for it.
#pragma once

#include <memory>
#include <simgrid/s4u.hpp>
#include <string>

#include "sim/engine/gradient_sync.h"
#include "sim/engine/run_context.h"

namespace ddpsim {

class ShardedSync : public GradientSync {
 public:
  enum class Stream { kUnshard, kReduce };
  enum class Op {
    kAllGather,      // bytes = the gathered buffer (the unit's parameters at the compute dtype)
    kReduceScatter,  // bytes = the unit's (or bucket's) gradients before scattering
    kStop,           // ends the stream's actor (after the worker's last step)
  };

  // Released once the operation is done; wait() may be called any number of times.
  using Done = simgrid::s4u::SemaphorePtr;

  // Queues `op` on the rank's stream. The stream starts it once the operations before it are done
  // and, when `gate` is given, once the gate was released (FSDP's rate limiter: an all-gather
  // waits until the unit gathered two before it was freed). `unit` indexes bucket_reports().
  virtual Done issue(int rank, Stream stream, Op op, double bytes, int step, int unit,
                     const std::string& label, simgrid::s4u::SemaphorePtr gate = nullptr) = 0;
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
