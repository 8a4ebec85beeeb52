// How a worker's gradients become updated parameters. The worker actor calls bucket_ready() as
// backward fills each bucket (never blocks) and wait_synchronised() before the optimizer step
// (blocks while synchronisation is not done). Strategies whose forward pass waits per layer
// (gates_forward: priority scheduling, TensorFlow-style pulls) return from wait_synchronised at
// once; the next step's forward calls wait_layer() before each layer instead. Implementations own
// their actors (NCCL-stream-like communication actors, parameter servers) and account their busy
// time per rank.
#pragma once

#include <vector>

#include "sim/results/result.h"

namespace ddpsim {

class GradientSync {
 public:
  virtual ~GradientSync() = default;

  virtual void bucket_ready(int rank, int step, int bucket) = 0;
  virtual void wait_synchronised(int rank, int step) = 0;
  virtual bool gates_forward() const { return false; }
  // Blocks until the parameters of `layer` updated by step `step`'s synchronisation are in.
  virtual void wait_layer(int /*rank*/, int /*step*/, int /*layer*/) {}
  // False for parameter servers that apply the update: workers only pull.
  virtual bool worker_runs_optimizer() const { return true; }
  // The step whose gradients from every GPU a wait for step `step` depends on (async parameter
  // servers: step - staleness); < 0 when none. Splits waits into straggler and communication.
  virtual int peer_step(int step) const { return step; }
  // Every GPU finished its last step: actors kept waiting for more work may go (messages still
  // in flight are delivered as before).
  virtual void steps_over() {}

  // Statistics over measured steps (step >= warmup), filled while the simulation runs.
  virtual double comm_busy(int rank) const = 0;                  // seconds, summed
  virtual std::vector<BucketReport> bucket_reports() const = 0;  // per bucket, rank 0
  virtual void append_trace(std::vector<TraceEvent>* out) const = 0;
  // Strategy-specific results, called once the summary is filled (parameter servers: observed
  // staleness; async mode: throughput as the sum of the workers' own rates).
  virtual void report(SimulationResult* /*result*/) const {}
};

}  // namespace ddpsim
