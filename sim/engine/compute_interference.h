// Compute slowed down while the same GPU communicates. NCCL kernels and copy engines share the
// GPU's SMs and memory bandwidth with the training kernels; the calibration harness measures a
// GEMM alone and next to an all-reduce, and that ratio (the slowdown factor f >= 1) applies to
// every second of compute that overlaps this GPU's communication: the work progresses at 1/f of
// its normal rate while the GPU communicates and at full rate otherwise, switching exactly when
// a collective starts or ends.
#pragma once

#include <simgrid/s4u.hpp>
#include <vector>

namespace ddpsim {

class ComputeInterference {
 public:
  ComputeInterference(int ranks, double slowdown);

  // Called by the GPU's communication actor when its collective starts and ends.
  void set_communicating(int rank, bool communicating);

  // Runs `seconds` of work (at full speed) on `rank`; returns the simulated time it took.
  double compute(int rank, double seconds);

 private:
  struct Gpu {
    simgrid::s4u::MutexPtr mutex;
    simgrid::s4u::ConditionVariablePtr changed;
    bool communicating = false;
  };
  double slowdown_;
  std::vector<Gpu> gpus_;
};

}  // namespace ddpsim
