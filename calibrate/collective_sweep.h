// NCCL collectives over every local GPU (one process, ncclCommInitAll): a size sweep printed like
// nccl-tests (size, count, type, redop, root, time, algbw, busbw) and returned as a
// CollectiveSweep with its alpha-beta fit. Sizes follow nccl-tests: for all_gather the size is
// the gathered (output) buffer, for reduce_scatter the input buffer. Each repeat is timed with
// events on every rank's stream; a sample is the slowest rank's time.
// With one GPU NCCL still runs (a one-rank communicator copies locally): the figures are
// single-device ones and the caller says so in the profile.
#pragma once

#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdio>
#include <string>
#include <vector>

#include "kernels/device_buffer.h"
#include "sim/measurements/calibration_profile.h"

namespace ddpsim::calibrate {

class Communicator {
 public:
  // All devices 0..devices-1; buffers of max_bytes per rank for send and receive.
  Communicator(int devices, size_t max_bytes);
  ~Communicator();
  Communicator(const Communicator&) = delete;
  Communicator& operator=(const Communicator&) = delete;

  int ranks() const { return static_cast<int>(comms_.size()); }
  cudaStream_t stream(int rank) const { return streams_[rank]; }
  size_t max_bytes() const { return max_bytes_; }

  // Enqueues one collective of `bytes` (nccl-tests' size) on every rank, as one NCCL group.
  // Returns false when `bytes` is too small to split over the ranks (all_gather, reduce_scatter).
  bool launch(CollectiveOp op, size_t bytes);
  void synchronize();

  static std::string version();  // "2.28.9"

 private:
  std::vector<ncclComm_t> comms_;
  std::vector<cudaStream_t> streams_;
  std::vector<kernels::DeviceBuffer> send_, recv_;
  size_t max_bytes_;
};

// Restores the calling thread's current device when it goes out of scope: the collectives
// switch devices rank by rank, the harness's kernels run on --device.
class CurrentDeviceGuard {
 public:
  CurrentDeviceGuard();
  ~CurrentDeviceGuard();
  CurrentDeviceGuard(const CurrentDeviceGuard&) = delete;
  CurrentDeviceGuard& operator=(const CurrentDeviceGuard&) = delete;

 private:
  int device_ = 0;
};

struct SweepOptions {
  size_t min_bytes = 8;
  size_t max_bytes = size_t{1} << 30;
  int warmup = 5;
  int repeats = 20;
};

// Prints the nccl-tests-like table to `out` as it goes.
CollectiveSweep sweep_collective(Communicator& comm, CollectiveOp op, const SweepOptions& options,
                                 std::FILE* out);

}  // namespace ddpsim::calibrate
