// How a worker's gradients become updated parameters. The worker actor calls bucket_ready() as
// backward fills each bucket (never blocks) and wait_synchronised() before the optimizer step
// (blocks while synchronisation is not done). Implementations own their actors (NCCL-stream-like
// communication actors, parameter servers) and account their busy time per rank.
#pragma once

#include <vector>

#include "sim/results/result.h"

namespace ddpsim {

class GradientSync {
 public:
  virtual ~GradientSync() = default;

  virtual void bucket_ready(int rank, int step, int bucket) = 0;
  virtual void wait_synchronised(int rank, int step) = 0;
  // False for parameter servers: the server applies the update, workers only pull.
  virtual bool worker_runs_optimizer() const { return true; }

  // Statistics over measured steps (step >= warmup), filled while the simulation runs.
  virtual double comm_busy(int rank) const = 0;                  // seconds, summed
  virtual std::vector<BucketReport> bucket_reports() const = 0;  // per bucket, rank 0
  virtual void append_trace(std::vector<TraceEvent>* out) const = 0;
  // Strategy-specific results, called once the summary is filled (parameter servers: observed
  // staleness; async mode: throughput as the sum of the workers' own rates).
  virtual void report(SimulationResult* /*result*/) const {}
};

}  // namespace ddpsim
