// What one simulation predicts. Times are seconds, averaged over the measured (post-warmup)
// optimizer steps. A GPU's breakdown components add up to its iteration time exactly.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace ddpsim {

struct Breakdown {
  double data_wait = 0;  // waiting for the input pipeline
  double forward = 0;
  double backward = 0;
  double exposed_comm = 0;  // waiting for synchronisation (not hidden), beyond straggler_wait
  // Waiting for a slower GPU: the part of a synchronisation wait before the last GPU whose
  // gradients this step needs had produced them (worker.cpp); more bandwidth cannot shorten it.
  double straggler_wait = 0;
  double optimizer = 0;
  double total() const {
    return data_wait + forward + backward + exposed_comm + straggler_wait + optimizer;
  }
};

struct BucketReport {
  int index = 0;
  int tensors = 0;
  double bytes = 0;
  std::string algorithm;  // what reduced it (auto reports its pick)
  double comm_time = 0;   // mean duration of its collective
};

struct TraceEvent {
  TraceEvent() = default;
  TraceEvent(int gpu_, std::string lane_, std::string name_, double start_, double end_)
      : gpu(gpu_), lane(std::move(lane_)), name(std::move(name_)), start(start_), end(end_) {}
  int gpu = 0;
  std::string lane;  // "step", "compute", "comm", "data"
  std::string name;
  double start = 0, end = 0;
  // What the slice is about, shown by Perfetto: bucket index, bytes, tensors, algorithm, the
  // link that bound it... Numbers and texts kept apart so the JSON keeps their types.
  std::map<std::string, double> numbers;
  std::map<std::string, std::string> texts;
};

// One link's use over the measured steps (link_meter.h says how it is measured).
struct LinkReport {
  std::string name;            // readable: "node3/nic1 tx", "leaf2→spine" (link_names.h)
  std::string link_class;      // kLinkClassNames
  std::string group;           // "nic tx", "leaf up", ...
  std::string label;           // the group as the summary names it: "NICs", "leaf uplinks"
  int node = -1;               // the node a node link belongs to, else -1
  int leaf = -1;               // the leaf of a leaf uplink, else -1
  double bandwidth = 0;        // bytes/s
  double bytes = 0;            // per step: moved by simulated flows plus accounted ones
  double accounted_bytes = 0;  // per step, of `bytes`: accounted without a flow (alpha-beta)
  double busy = 0;             // seconds per step at least one simulated flow crossed it
  double utilisation = 0;      // bytes / (bandwidth x iteration time)
};

struct LinkClassReport {
  std::string link_class;
  int links = 0;        // links of the class in the platform
  int used = 0;         // of which carried bytes
  double bytes = 0;     // per step, summed over the class's links
  double busy_max = 0;  // seconds per step, the busiest link's
  double utilisation_max = 0;
  double utilisation_mean = 0;  // over the links that carried bytes
  std::string busiest;          // the link with utilisation_max ("" when none carried bytes)
};

// A time series of one link's utilisation during the traced step (trace.json counter tracks):
// each flow at its mean rate over its life inside the step.
struct LinkCounter {
  std::string link;
  std::vector<std::pair<double, double>> points;  // (time s, utilisation 0..1), steps
};

struct LinkUsage {
  double window = 0;  // seconds measured (the measured steps)
  int steps = 0;
  std::vector<LinkClassReport> classes;  // one per class, kLinkClassNames order
  std::vector<LinkReport> busiest;       // the most utilised links, most first
  std::vector<LinkReport> fabric;        // every link outside the nodes: leaves, servers, storage
  // Heat map: per node, the largest utilisation of each node group (node_groups), -1 where the
  // node has no link of that group.
  std::vector<std::string> node_groups;
  std::vector<std::vector<double>> per_node;
};

struct MemoryReport {
  double weights = 0, gradients = 0, optimizer_state = 0, activations = 0, workspace = 0;
  double total = 0, capacity = 0;
  bool fits = true;
  int max_batch_that_fits = 0;  // per GPU; 0 when not even batch 1 fits
  double in_flight = 0;         // part of workspace: buckets, or gathered units (sharding)
  // When it does not fit: the first sharding (then with activation checkpointing) that does,
  // e.g. "sync.sharding: zero3 (largest batch 6)"; "" when it fits or nothing does.
  std::string fits_with;
};

struct SimulationResult {
  std::string scenario;
  std::string model;
  // The model as built: every parameter (frozen ones included), the trainable ones (what
  // gradients, buckets and optimizers carry) and forward FLOPs per sample (2 per multiply-add).
  int64_t model_parameters = 0;
  int64_t model_trainable_parameters = 0;
  double model_forward_flops_per_sample = 0;
  // Transformers (model_flops.h, PaLM appendix B); all 0 for other models.
  double tokens_per_sample = 0;
  double model_flops_per_token = 0;     // 6N + 12 L H Q T
  double hardware_flops_per_token = 0;  // plus the forward recomputed under checkpointing
  double peak_flops_per_gpu = 0;        // datasheet dense matmul peak at the training precision
  double tokens_per_second() const { return samples_per_second * tokens_per_sample; }
  double tokens_per_second_per_gpu() const { return gpus > 0 ? tokens_per_second() / gpus : 0; }
  double mfu() const;  // model FLOPs utilisation, 0 for a model without attention
  double hfu() const;  // hardware FLOPs utilisation (recomputation counted)
  int gpus = 0;
  int nodes = 0;
  double global_batch = 0;    // samples per optimizer step, all GPUs
  double iteration_time = 0;  // one optimizer step, slowest GPU
  double samples_per_second = 0;
  double single_gpu_samples_per_second = 0;      // the same GPU alone (baseline run); 0 = not
                                                 // computed (--no-baseline): null in results
  double scaling_efficiency = 0;                 // samples_per_second / (gpus * single-GPU rate)
  // The baseline's own bottleneck ("" without one): a data-loading-bound baseline makes the
  // efficiency compare two loader-starved runs (llm_units.h says so wherever it prints).
  std::string single_gpu_bottleneck;
  Breakdown breakdown;                           // mean over GPUs
  Breakdown slowest_gpu;                         // the GPU with the largest compute time
  double comm_time = 0;                          // mean per GPU: time its sync stream was busy
  double comm_share = 0;                         // comm_time / iteration_time
  double exposed_comm_share = 0;                 // breakdown.exposed_comm / iteration_time
  double straggler_share = 0;                    // breakdown.straggler_wait / iteration_time
  std::string bottleneck;                        // compute-bound | communication-bound |
                                                 // straggler-bound | data-loading-bound |
                                                 // memory-infeasible
  std::array<double, 6> bytes_per_link_class{};  // per step, bytes x links, see LinkClass
  double bytes_sent = 0, bytes_received = 0;     // per step, all endpoints
  std::vector<BucketReport> buckets;
  double data_rate_per_gpu = 0;   // samples/s the input pipeline can feed one GPU (0 = n/a)
  double train_rate_per_gpu = 0;  // samples/s one GPU computes without waiting
  MemoryReport memory;
  std::vector<TraceEvent> trace;           // the last step of the traced GPUs
  std::vector<int> traced_gpus;            // which GPUs the trace shows
  std::vector<LinkCounter> link_counters;  // utilisation of the busiest links in that step
  LinkUsage links;                         // per-link utilisation over the measured steps
  std::string bottleneck_link;        // what binds when communication-bound: "leaf uplinks 94 %
                                      // busy" ("" otherwise)
  int staleness_max = 0;              // parameter servers: most steps a pull lagged behind
  double staleness_mean = 0;          //   (0 when synchronous), max / mean over measured steps
  std::string notes;                  // e.g. which mode/approximation was used
  std::vector<std::string> warnings;  // inputs used beyond what they describe (alpha_beta_use.h)
  bool partial = false;               // stopped by --max-wall
};

extern const std::array<const char*, 6> kLinkClassNames;

}  // namespace ddpsim
