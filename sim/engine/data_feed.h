// The input pipeline as seen by a worker: wait_batch() returns once the micro-batch is on the
// GPU. The synthetic feed (benchmark scripts' on-device data) never waits.
#pragma once

#include <vector>

#include "sim/results/result.h"

namespace ddpsim {

class DataFeed {
 public:
  virtual ~DataFeed() = default;
  virtual void wait_batch(int rank, int step, int micro) = 0;
  virtual double rate_per_gpu() const { return 0; }  // samples/s the loader sustains, 0 = n/a
  virtual void append_trace(std::vector<TraceEvent>* /*out*/) const {}
};

class SyntheticFeed : public DataFeed {
 public:
  void wait_batch(int, int, int) override {}
};

}  // namespace ddpsim
