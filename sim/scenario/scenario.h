// The typed scenario: everything one simulation needs, parsed and validated once at the edge
// (scenario_loader.h). Model code reads only these structs, never YAML. All quantities are in
// SI base units: bytes, bytes/second, seconds, FLOP/s. Defaults here are the documented defaults
// of the scenario reference in README.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/util/input_error.h"

namespace ddpsim {

// ---------------------------------------------------------------- cluster

struct GpuSpec {
  std::string name;          // preset name or "custom"
  double fp32_flops = 0;     // peak FLOP/s, dense
  double tf32_flops = 0;     // 0 = no TF32 tensor cores (falls back to fp32)
  double fp16_flops = 0;     // tensor-core peak for fp16 (mixed precision)
  double bf16_flops = 0;     // 0 = no bf16 support (falls back to fp16)
  double memory_bytes = 0;   // HBM capacity
  double hbm_bandwidth = 0;  // bytes/s
};

enum class IntraNodeKind { kNvSwitch, kNvLinkMesh, kPcie };

struct IntraNodeSpec {
  IntraNodeKind kind = IntraNodeKind::kNvSwitch;
  double bandwidth = 0;  // per GPU, per direction, bytes/s (what NCCL's ring achieves)
  double latency = 0;    // alpha per message, seconds
};

struct NicSpec {
  int count = 1;         // NICs per node; local GPU l uses NIC l * count / gpus_per_node
  double bandwidth = 0;  // per NIC, per direction, bytes/s
  double latency = 0;    // alpha per inter-node message, seconds
};

enum class FabricKind { kLeafSpine };

struct FabricSpec {
  FabricKind kind = FabricKind::kLeafSpine;
  int nodes_per_leaf = 16;
  double oversubscription = 1.0;  // leaf downlink : uplink capacity ratio, >= 1
};

struct ClusterSpec {
  int nodes = 1;
  int gpus_per_node = 1;
  GpuSpec gpu;
  IntraNodeSpec intra_node;
  double pcie_bandwidth = 0;  // per GPU, per direction, bytes/s (H2D copies, GPU<->NIC)
  NicSpec nic;
  FabricSpec fabric;
  int cpu_cores_per_node = 64;  // decode/augment workers share these

  int total_gpus() const { return nodes * gpus_per_node; }
};

// ---------------------------------------------------------------- model

struct ModelSpec {
  std::string name;             // model zoo key (see `ddpsim models`)
  int sequence_length = 0;      // transformers: 0 = the model's default
  std::vector<int> mlp_layers;  // mlp: layer widths, input first (e.g. [1024, 4096, 4096, 10])
};

// ---------------------------------------------------------------- training

enum class Precision { kFp32, kTf32, kFp16, kBf16 };  // fp16/bf16 = mixed precision (AMP)
enum class Optimizer { kSgd, kMomentum, kAdam };

struct TrainingSpec {
  int batch_per_gpu = 32;
  Precision precision = Precision::kFp32;
  Optimizer optimizer = Optimizer::kMomentum;
  int gradient_accumulation = 1;  // micro-batches per optimizer step (one sync per step)
  int iterations = 5;             // simulated optimizer steps, including warmup
  int warmup = 1;                 // steps excluded from the averages
};

// ---------------------------------------------------------------- synchronisation

enum class SyncStrategy { kAllReduce, kParameterServer, kLocalSgd };
enum class AllReduceAlgorithm { kRing, kTree, kHalvingDoubling, kHierarchical, kAuto };
enum class CollectiveMode { kFlow, kChunked };  // flow: one flow per ring edge; chunked: per step
// byteps: a server colocated on every node plus `servers` dedicated CPU machines (0 allowed),
// holding BytePS's optimal shares of the parameters (collective_formulas.h, byteps_shares).
enum class PsPlacement { kDedicated, kColocated, kByteps };
enum class PsMode { kSync, kAsync };

struct ParameterServerSpec {
  int servers = 1;  // byteps: the dedicated CPU servers (the colocated are extra)
  PsPlacement placement = PsPlacement::kDedicated;
  double server_nic_bandwidth = 0;  // dedicated servers: bytes/s per server (0 = cluster NIC)
  PsMode mode = PsMode::kSync;
  int staleness = 0;                  // async: max iterations a worker may run ahead
  double chunk_bytes = 4e6;           // tensors are partitioned into chunks of this size
  double update_flops_per_param = 0;  // server-side update cost (0 = optimizer default)
};

struct AlphaBetaPoint {  // one row of a fitted collective cost table
  double min_bytes = 0, max_bytes = 0;
  double alpha = 0;  // seconds
  double beta = 0;   // seconds per byte (1 / bus bandwidth)
};

struct SyncSpec {
  SyncStrategy strategy = SyncStrategy::kAllReduce;
  AllReduceAlgorithm algorithm = AllReduceAlgorithm::kRing;
  CollectiveMode mode = CollectiveMode::kFlow;
  double bucket_cap = 25.0 * 1024 * 1024;   // PyTorch DDP bucket_cap_mb=25 (MiB)
  double first_bucket = 1.0 * 1024 * 1024;  // dist._DEFAULT_FIRST_BUCKET_BYTES
  bool overlap = true;                      // start a bucket as soon as it is full
  int gradient_bytes = 4;                   // bytes per gradient element on the wire
  int channels = 0;                         // rings in parallel; 0 = NIC count (NCCL-like)
  ParameterServerSpec ps;
  int local_sgd_period = 1;      // local SGD: average weights every K steps
  std::string alpha_beta_table;  // optional path: measured costs replace links
  std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>> alpha_beta;  // loaded table
};

// ---------------------------------------------------------------- compute

enum class ComputeMode { kRoofline, kMeasured, kProfile };

struct ComputeSpec {
  ComputeMode mode = ComputeMode::kRoofline;
  double efficiency = 0.5;         // roofline: achieved fraction of peak FLOP/s
  double memory_efficiency = 0.8;  // roofline: achieved fraction of HBM bandwidth (streaming
                                   // kernels: norms, activations, optimizer)
  double step_time = 0;            // measured: one single-GPU iteration (fwd+bwd+optimizer), s
  std::string profile;             // profile: path to a calibration profile (calibrate/)
  // Compute runs this many times slower while its GPU communicates (NCCL kernels share the SMs
  // and HBM). 0 = the profile's measured factor in profile mode, else 1.
  double overlap_slowdown = 0;
};

// ---------------------------------------------------------------- data loading

enum class StorageKind { kLocal, kShared };
enum class DecodeKind { kCpu, kGpu };

struct DataSpec {
  bool synthetic = true;     // no loading at all (benchmark scripts' default)
  double sample_bytes = 0;   // as stored (e.g. JPEG ~110 KB for ImageNet)
  double decoded_bytes = 0;  // copied to the GPU per sample (e.g. 3*224*224 uint8)
  int64_t samples = 0;       // dataset size (epochs); 0 = unknown
  StorageKind storage = StorageKind::kLocal;
  double storage_bandwidth = 0;    // local: per node; shared: aggregate, bytes/s
  double storage_iops = 0;         // reads/s (0 = unlimited)
  double client_bandwidth = 0;     // shared: per-node client limit, bytes/s (0 = NIC)
  bool client_shares_nic = false;  // shared storage reads use the node's NIC links
  double page_cache_fraction = 0;  // fraction served from memory after the first epoch
  DecodeKind decode = DecodeKind::kCpu;
  int workers_per_gpu = 4;       // loader processes per GPU
  double samples_per_core = 0;   // decode+augment rate of one core, samples/s
  double gpu_decode_time = 0;    // decode: gpu — GPU seconds per sample
  int prefetch = 2;              // batches the loader may run ahead
  double stall_probability = 0;  // per batch: chance the read stalls (seeded), for jitter
  double stall_time = 0;         // seconds one stall lasts
};

// ---------------------------------------------------------------- stragglers

enum class StragglerKind { kNone, kFixed, kLognormal, kUniform };

struct StragglerSpec {
  StragglerKind kind = StragglerKind::kNone;
  std::map<int, double> fixed;  // fixed: GPU rank -> slowdown factor (>= 1)
  double sigma = 0;             // lognormal: sigma of log(slowdown)
  double max = 1;               // uniform: slowdown drawn in [1, max]
  bool per_iteration = false;   // redraw every iteration (else once per GPU)
};

// ---------------------------------------------------------------- the whole scenario

struct Scenario {
  std::string source;  // file it came from ("" when built in code)
  std::string name;    // scenario.name, defaults to the file stem
  ClusterSpec cluster;
  ModelSpec model;
  TrainingSpec training;
  SyncSpec sync;
  ComputeSpec compute;
  DataSpec data;
  StragglerSpec stragglers;
  uint64_t seed = 1;  // all randomness is drawn from this
};

// Names used in YAML, messages and results. Each `*_name` is the inverse of the loader's parse.
const char* precision_name(Precision p);
const char* optimizer_name(Optimizer o);
const char* strategy_name(SyncStrategy s);
const char* algorithm_name(AllReduceAlgorithm a);
const char* intra_node_name(IntraNodeKind k);

}  // namespace ddpsim
