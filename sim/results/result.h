// What one simulation predicts. Times are seconds, averaged over the measured (post-warmup)
// optimizer steps. A GPU's breakdown components add up to its iteration time exactly.
#pragma once

#include <array>
#include <string>
#include <vector>

namespace ddpsim {

struct Breakdown {
  double data_wait = 0;  // waiting for the input pipeline
  double forward = 0;
  double backward = 0;
  double exposed_comm = 0;  // waiting for synchronisation after backward (not hidden)
  double optimizer = 0;
  double total() const { return data_wait + forward + backward + exposed_comm + optimizer; }
};

struct BucketReport {
  int index = 0;
  int tensors = 0;
  double bytes = 0;
  std::string algorithm;  // what reduced it (auto reports its pick)
  double comm_time = 0;   // mean duration of its collective
};

struct TraceEvent {
  int gpu = 0;
  std::string lane;  // "compute", "comm", "data"
  std::string name;
  double start = 0, end = 0;
};

struct MemoryReport {
  double weights = 0, gradients = 0, optimizer_state = 0, activations = 0, workspace = 0;
  double total = 0, capacity = 0;
  bool fits = true;
  int max_batch_that_fits = 0;  // per GPU; 0 when not even batch 1 fits
};

struct SimulationResult {
  std::string scenario;
  std::string model;
  int gpus = 0;
  int nodes = 0;
  double global_batch = 0;    // samples per optimizer step, all GPUs
  double iteration_time = 0;  // one optimizer step, slowest GPU
  double samples_per_second = 0;
  double single_gpu_samples_per_second = 0;      // the same GPU alone (baseline run)
  double scaling_efficiency = 0;                 // samples_per_second / (gpus * single-GPU rate)
  Breakdown breakdown;                           // mean over GPUs
  Breakdown slowest_gpu;                         // the GPU with the largest compute time
  double comm_time = 0;                          // mean per GPU: time its sync stream was busy
  double comm_share = 0;                         // comm_time / iteration_time
  double exposed_comm_share = 0;                 // breakdown.exposed_comm / iteration_time
  std::string bottleneck;                        // compute-bound | communication-bound |
                                                 // data-loading-bound | memory-infeasible
  std::array<double, 5> bytes_per_link_class{};  // per step, bytes x links, see LinkClass
  double bytes_sent = 0, bytes_received = 0;     // per step, all endpoints
  std::vector<BucketReport> buckets;
  double data_rate_per_gpu = 0;   // samples/s the input pipeline can feed one GPU (0 = n/a)
  double train_rate_per_gpu = 0;  // samples/s one GPU computes without waiting
  MemoryReport memory;
  std::vector<TraceEvent> trace;  // one measured step, first GPUs only
  int staleness_max = 0;          // parameter servers: most steps a pull lagged behind
  double staleness_mean = 0;      //   (0 when synchronous), max / mean over measured steps
  std::string notes;              // e.g. which mode/approximation was used
  bool partial = false;           // stopped by --max-wall
};

extern const std::array<const char*, 5> kLinkClassNames;

}  // namespace ddpsim
