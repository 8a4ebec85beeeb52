// The typed scenario: everything one simulation needs, parsed and validated once at the edge
// (scenario_loader.h). Model code reads only these structs, never YAML. All quantities are in
// SI base units: bytes, bytes/second, seconds, FLOP/s. Defaults here are the documented defaults
// of the scenario reference (docs/scenario-reference.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/text/input_error.h"

namespace ddpsim {

struct AlphaBetaFile;        // sim/measurements/calibration_profile.h
struct CalibrationProfile;   // sim/measurements/calibration_profile.h
struct PlatformCalibration;  // sim/measurements/platform_file.h

// ---------------------------------------------------------------- cluster

struct GpuSpec {
  std::string name;          // preset name or "custom"
  double fp32_flops = 0;     // peak FLOP/s, dense
  double tf32_flops = 0;     // 0 = no TF32 tensor cores (falls back to fp32)
  double fp16_flops = 0;     // tensor-core peak for fp16 (mixed precision)
  double bf16_flops = 0;     // 0 = no bf16 support (falls back to fp16)
  double fp8_flops = 0;      // dense fp8 tensor-core peak; 0 = no fp8 (precision fp8 refused)
  double memory_bytes = 0;   // HBM capacity
  double hbm_bandwidth = 0;  // bytes/s
  // SM version x 10 (80 = Ampere, 100 = Blackwell); 0 = unknown or not an NVIDIA GPU (AMD runs
  // RCCL): NCCL's tuning (cost/nccl_tuning.h) then takes its pre-Ampere rows and no LL128.
  int compute_capability = 0;
  bool pcie_p2p = true;  // the driver allows PCIe peer-to-peer (GeForce cards: false)
};

enum class IntraNodeKind { kNvSwitch, kNvLinkMesh, kPcie };

struct IntraNodeSpec {
  IntraNodeKind kind = IntraNodeKind::kNvSwitch;
  double bandwidth = 0;  // per GPU, per direction, bytes/s (what NCCL's ring achieves)
  double latency = 0;    // alpha per message, seconds
  // pcie: GPUs of one socket exchange data peer-to-peer; false = staged through host memory
  // (NCCL's SHM transport). Traffic between sockets is always staged. Default: the GPU's.
  bool p2p = true;
};

// PCIe switches shared by `gpus` consecutive GPUs, each reaching the CPU over one uplink.
struct PcieSwitchSpec {
  int gpus = 0;       // GPUs per switch; 0 = every GPU on its own root port
  double uplink = 0;  // per switch, per direction, bytes/s
};

enum class CpuVendor { kIntel, kAmd };  // NCCL's tuning differs (network overhead, LL ceiling)

// The host side of a node: CPU sockets, their memory as seen by PCIe DMA, the link between them.
struct HostSpec {
  int sockets = 1;                    // GPUs and NICs split evenly, in order
  double bandwidth = 204.8e9;         // per socket: memory bandwidth available to DMA, bytes/s
  double socket_link = 10e9;          // UPI/xGMI between two sockets, per direction, bytes/s
  CpuVendor cpu = CpuVendor::kIntel;  // NCCL_NET_OVERHEAD 1 us (Intel) or 2 us (AMD)
};

enum class NicTransport { kRdma, kTcp };

struct NicSpec {
  int count = 1;         // NICs per node; local GPU l uses NIC l * count / gpus_per_node
  double bandwidth = 0;  // per NIC, per direction, bytes/s
  double latency = 0;    // alpha per inter-node message, seconds
  NicTransport transport = NicTransport::kRdma;
  bool gpudirect = true;  // GPU <-> NIC without host memory (GPUDirect RDMA)
  // Fraction of `bandwidth` the transport delivers (resolved by the loader: rdma 1; tcp from
  // streams x stream_bandwidth, capped by TCP's header efficiency, docs/transports.md).
  double efficiency = 1.0;
  int streams = 2;              // tcp: sockets per NIC (NCCL: 2 channels x 1 socket each)
  double stream_bandwidth = 0;  // tcp: what one stream moves, bytes/s
  double message_cost = 0;      // CPU seconds per message (tcp), added like latency

  double effective_bandwidth() const { return bandwidth * efficiency; }
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
  PcieSwitchSpec pcie_switch;
  HostSpec host;
  NicSpec nic;
  FabricSpec fabric;
  int cpu_cores_per_node = 64;  // decode/augment workers share these
  // cluster.calibration: a platform file (ddpsim calibrate --fit-platform) whose fitted link
  // parameters replaced the values above; "" when none. calibration_notes: one line per value;
  // calibration_warnings: the file was fitted on another GPU type.
  std::string calibration;
  std::vector<std::string> calibration_notes;
  std::vector<std::string> calibration_warnings;
  // That file, read and checked once by the loader (parse_cluster.cpp): the assumption ledger
  // takes each fitted parameter's device from it and never opens the file. Shared by every copy
  // of the scenario; null when the cluster names none.
  std::shared_ptr<const PlatformCalibration> fitted_platform;
  // Values taken as written that look mistaken (a bandwidth in bits per second that matches the
  // technology's rate in bytes per second: bits_for_bytes.h); shown with the results' warnings.
  std::vector<std::string> input_warnings;

  int total_gpus() const { return nodes * gpus_per_node; }
  int leaves() const { return (nodes + fabric.nodes_per_leaf - 1) / fabric.nodes_per_leaf; }
  int socket_of_local(int local) const { return local * host.sockets / gpus_per_node; }
  int socket_of_nic(int nic_index) const { return nic_index * host.sockets / nic.count; }
  int switch_of_local(int local) const {
    return pcie_switch.gpus > 0 ? local / pcie_switch.gpus : -1;
  }
  // Whether traffic between local GPUs l and m goes through host memory (PCIe without P2P, or
  // between sockets); NVLink kinds never stage.
  bool staged(int l, int m) const {
    if (intra_node.kind != IntraNodeKind::kPcie) return false;
    return !intra_node.p2p || socket_of_local(l) != socket_of_local(m);
  }
};

// ---------------------------------------------------------------- model

struct Model;

// How attention's softmax(QK^T)V runs. eager: the matmuls, scale, mask, softmax and dropout as
// separate kernels that write (and keep for backward) the heads x q x kv probabilities; sdpa:
// torch.nn.functional.scaled_dot_product_attention, one fused kernel (flash or memory-efficient)
// that never writes them; flash: FlashAttention-2 (HF flash_attention_2), fused the same way,
// fp16/bf16 only. sdpa and flash cost the same in this model (docs/model-assumptions.md).
enum class Attention { kEager, kSdpa, kFlash };

struct ModelSpec {
  std::string name;             // model zoo key (see `ddpsim models`); file models: their name
  int sequence_length = 0;      // transformers: 0 = the model's default
  std::vector<int> mlp_layers;  // mlp: layer widths, input first (e.g. [1024, 4096, 4096, 10])
  std::string file;             // model.file: a model file (docs/model-import.md)
  std::string hf_config;        // model.hf_config: a Hugging Face config.json
  // The model read from `file` or `hf_config` by the scenario loader (files are read at the
  // edge, once); build_model returns a copy.
  std::shared_ptr<const Model> loaded;
  // model.attention, resolved by the loader: as stated, else the model's own default (a Hugging
  // Face config's attn_implementation, else what transformers runs by default: sdpa; a zoo
  // entry's documented default; a model file's as exported). Unset for models without attention.
  std::optional<Attention> attention;
  bool attention_stated = false;
  SourceLocation attention_where;  // where model.attention was written (precision errors)
};

// ---------------------------------------------------------------- training

// fp16/bf16 = mixed precision (AMP). fp8 = Transformer Engine style: conv/linear GEMMs run on
// the fp8 tensor cores, everything else (attention's matmuls included) as bf16; weights,
// gradients and activations are held as in bf16 mixed precision.
enum class Precision { kFp32, kTf32, kFp16, kBf16, kFp8 };
enum class Optimizer { kSgd, kMomentum, kAdam };

struct TrainingSpec {
  int batch_per_gpu = 32;
  Precision precision = Precision::kFp32;
  Optimizer optimizer = Optimizer::kMomentum;
  int gradient_accumulation = 1;  // micro-batches per optimizer step (one sync per step)
  int iterations = 5;             // simulated optimizer steps, including warmup
  int warmup = 1;                 // steps excluded from the averages
  // Recompute each sharding unit's forward in its backward (PyTorch checkpoint_wrapper on every
  // unit, DeepSpeed activation checkpointing per layer): only the units' inputs stay saved.
  bool activation_checkpointing = false;
};

// ---------------------------------------------------------------- synchronisation

enum class SyncStrategy { kAllReduce, kParameterServer, kLocalSgd };
enum class AllReduceAlgorithm { kRing, kTree, kHalvingDoubling, kHierarchical, kAuto, kNvls, kPat };
enum class CollectiveMode { kFlow, kChunked };  // flow: one flow per ring edge; chunked: per step
// What a ring/tree call charges besides its flows: NCCL's tuning model (sim/cost/nccl_tuning.h)
// or the plain 2(p-1) alpha of the message latencies.
enum class LatencyModel { kNccl, kAlpha };
enum class NcclProtocol { kLL, kLL128, kSimple, kAuto };
// byteps: a server colocated on every node plus `servers` dedicated CPU machines (0 allowed),
// holding BytePS's optimal shares of the parameters (collective_formulas.h, byteps_shares).
enum class PsPlacement { kDedicated, kColocated, kByteps };
enum class PsMode { kSync, kAsync };
// How partition keys are spread over the servers: hash is BytePS's (djb2 of the decimal key,
// modulo the server count; its "mixed mode" for the byteps placement), least-loaded gives each
// key to the server with the fewest bytes so far relative to its share (tf_cnn_benchmarks'
// ParamServerDeviceSetter), round-robin deals keys in order (TensorFlow's replica_device_setter).
enum class KeyPlacement { kHash, kLeastLoaded, kRoundRobin };
enum class PsUpdate { kServer, kWorker };  // where the optimizer step runs
// eager: the server answers a pull as soon as the partition is summed and the step waits for
// every pull (BytePS, MXNet kvstore); forward: the next step's forward reads each layer's
// parameters as it needs them (TensorFlow), pulls ordered by layer.
enum class PsPull { kEager, kForward };

struct ParameterServerSpec {
  int servers = 1;  // byteps: the dedicated CPU servers (the colocated are extra)
  PsPlacement placement = PsPlacement::kDedicated;
  double server_nic_bandwidth = 0;  // dedicated servers: bytes/s per server (0 = cluster NIC)
  PsMode mode = PsMode::kSync;
  int staleness = 0;  // async: max iterations a worker may run ahead
  KeyPlacement key_placement = KeyPlacement::kLeastLoaded;
  PsUpdate update = PsUpdate::kServer;
  PsPull pull = PsPull::kEager;
  double update_flops_per_param = 0;  // server-side update cost (0 = optimizer default)
  int server_threads = 4;             // engine threads summing pushes (BYTEPS_SERVER_ENGINE_THREAD)
  // Memory traffic a server sustains while summing (a sum reads two operands and writes one:
  // 3 bytes per gradient byte); shared by its engine threads. 0 = sums take no time.
  double server_memory_bandwidth = 100e9;
};

// Horovod tensor fusion (horovod/common/operations.cc): every cycle_time a background cycle
// negotiates which tensors every rank has ready (coordination seconds) and all-reduces them in
// fused buffers of at most threshold bytes.
struct FusionSpec {
  bool enabled = false;
  double threshold = 128.0 * 1024 * 1024;  // HOROVOD_FUSION_THRESHOLD (Horovod >= 0.21.0)
  double cycle_time = 1e-3;                // HOROVOD_CYCLE_TIME (Horovod >= 0.21.0)
  double coordination = -1;                // seconds per cycle; < 0: 2 ceil(log2 p) x alpha
};

enum class CommSchedule { kFifo, kPriority };

// Sharded data parallelism (docs/sharding.md). none: every GPU holds the whole model (DDP).
// zero1 / zero2: DeepSpeed ZeRO stages 1 and 2: parameters replicated, optimizer state (and for
// zero2 gradients) divided over the GPUs; gradients reduce-scattered, parameters all-gathered
// once after the optimizer step. zero3: PyTorch FSDP FULL_SHARD (= ZeRO stage 3): everything
// divided; each unit's parameters all-gathered before its forward and again before its backward,
// its gradients reduce-scattered as backward produces them. fsdp-hybrid: FSDP HYBRID_SHARD: zero3
// inside each node, the gradient shards all-reduced across nodes.
enum class Sharding { kNone, kZero1, kZero2, kZero3, kHybrid };
// FSDP's backward_prefetch: when the next unit's all-gather is issued in backward. pre: before
// this unit's gradient computation (BACKWARD_PRE, the default); post: after it (BACKWARD_POST);
// none: when the next unit's backward needs it.
enum class BackwardPrefetch { kPre, kPost, kNone };

struct ShardingSpec {
  Sharding strategy = Sharding::kNone;
  // FSDP units (auto_wrap_policy). 0: one unit per repeated block (transformer layer, ResNet
  // block), what transformer_auto_wrap_policy gives; > 0: size_based_auto_wrap_policy's
  // min_num_params, consecutive layers grouped until they hold this many parameters.
  int64_t wrap_min_params = 0;
  BackwardPrefetch backward_prefetch = BackwardPrefetch::kPre;
  bool forward_prefetch = false;  // FSDP default
  bool limit_all_gathers = true;  // FSDP default since PyTorch 2.1: two units gathered at most
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
  double bucket_cap = 25.0 * 1024 * 1024;   // PyTorch DDP bucket_cap_mb=25 (MiB); 0: per tensor
  double first_bucket = 1.0 * 1024 * 1024;  // dist._DEFAULT_FIRST_BUCKET_BYTES
  bool overlap = true;                      // start a bucket as soon as it is full
  // DDP's broadcast_buffers: bytes of module buffers (batch-norm statistics) rank 0 sends to
  // every rank before each forward, costed as a collective of that size; 0: none.
  double buffer_broadcast = 0;
  // fifo: buckets / partitions in the order gradients become ready; priority (ByteScheduler,
  // P3, TicTac): the layers nearest the input first, partitions of `partition` bytes, at most
  // `credit` bytes in flight, and each layer's forward waits only for its own parameters.
  CommSchedule schedule = CommSchedule::kFifo;
  double partition = 4096000;  // BytePS BYTEPS_PARTITION_BYTES default (byteps/common/global.cc)
  double credit = 0;           // bytes in flight per worker; 0: unlimited (fifo) or 5 partitions
  FusionSpec fusion;
  int gradient_bytes = 4;  // bytes per gradient element on the wire
  int channels = 0;        // rings in parallel; 0 = NIC count (NCCL-like)
  LatencyModel latency_model = LatencyModel::kNccl;
  // sync.nccl_latency: multiplies the base, per-hop and proxy latencies of NCCL's tuning table
  // (nccl_tuning.h) under latency_model nccl; the cluster's own link latencies are not scaled.
  // 1 = the table as NCCL v2.20 ships it. A ledger row (docs/assumptions.md) samples it.
  double nccl_latency = 1.0;
  NcclProtocol protocol = NcclProtocol::kAuto;  // NCCL_PROTO; auto = NCCL's choice by size
  ParameterServerSpec ps;
  ShardingSpec sharding;
  int local_sgd_period = 1;         // local SGD: average weights every K steps
  std::string alpha_beta_table;     // optional path: measured costs replace links
  SourceLocation alpha_beta_where;  // where the scenario names it (errors about its use)
  // A table given in code rather than a file (tests build one); results.json lists it.
  std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>> alpha_beta;
  // The file alpha_beta_table names, read and checked once by the loader (scenario_loader.cpp):
  // the collectives the engine builds use these sweeps and never open the file. Shared by every
  // copy of the scenario; null when there is no file.
  std::shared_ptr<const AlphaBetaFile> alpha_beta_file;

  // Measured alpha-beta costs (a table in code or a file) time the collectives instead of the
  // links and NCCL's latency table.
  bool alpha_beta_timed() const { return !alpha_beta.empty() || !alpha_beta_table.empty(); }
};

// ---------------------------------------------------------------- compute

enum class ComputeMode { kRoofline, kMeasured, kProfile };

struct ComputeSpec {
  ComputeMode mode = ComputeMode::kRoofline;
  double efficiency = 0.5;  // roofline: achieved fraction of peak FLOP/s
  // mode profile: why the profile does not describe this scenario's GPU or precision (measured
  // on another device, or its layers timed at another precision; sim/measurements/profile_match.h),
  // filled by the loader; "" when device and precision match. A warning, and a wider range.
  std::string profile_mismatch;
  double memory_efficiency = 0.8;  // roofline: achieved fraction of HBM bandwidth (streaming
                                   // kernels: norms, activations, optimizer)
  double step_time = 0;            // measured: one single-GPU iteration (fwd+bwd+optimizer), s
  std::string profile;             // profile: path to a calibration profile (calibrate/)
  // mode profile: that file, read and checked once by the loader (parse_compute.cpp); shared so
  // that every copy of the scenario (sweep points, uncertainty draws) sees the same value and
  // no cost model opens the file again. Null in the other modes.
  std::shared_ptr<const CalibrationProfile> measured_profile;
  // Compute runs this many times slower while its GPU communicates (NCCL kernels share the SMs
  // and HBM). 0 = the profile's measured factor in profile mode, else 1.
  double overlap_slowdown = 0;
  // A job of 2+ GPUs: every compute time (layers, optimizer) this many times the single-GPU
  // step's, the per-step work of the data-parallel framework a lone GPU does not do (DDP's
  // reducer hooks and bucket copies, extra launches and host synchronisation). 1 = none.
  double framework_overhead = 1.0;
  // Every compute time (layers, optimizer) multiplied by this after the mode has set them. Not a
  // YAML key: the uncertainty draws (sim/uncertainty) perturb a measured compute time with it.
  double time_scale = 1.0;
  // The step waits for the slowest GPU: its compute relative to the one calibrated or modelled
  // (1 = every GPU as fast). Not a YAML key: drawn by the uncertainty runs (GPU variability).
  double slowest_gpu = 1.0;
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

// Bounds that keep the simulated clock finite and meaningful: a GPU a thousand times slower
// than its peers is as good as gone. A lognormal draw above the bound is set to it; with
// sigma <= 2 that happens to fewer than 1 draw in 1,500 (|z| > 3.45).
constexpr double kMaxStragglerFactor = 1000;
constexpr double kMaxStragglerSigma = 2;

struct StragglerSpec {
  StragglerKind kind = StragglerKind::kNone;
  std::map<int, double> fixed;  // fixed: GPU rank -> slowdown factor (>= 1)
  double sigma = 0;             // lognormal: sigma of log(slowdown)
  double max = 1;               // uniform: slowdown drawn in [1, max]
  bool per_iteration = false;   // redraw every iteration (else once per GPU)
};

// ---------------------------------------------------------------- simulation scope

// How much of the cluster the simulator runs (sim/cost/symmetry.h, docs/scale.md). full: every
// GPU. symmetric: a representative slice of whole leaves, the rest folded in (exact for the
// regular clusters it accepts; an input error elsewhere). auto: symmetric from
// kSymmetricFromGpus GPUs where eligible, else full; the result's notes say which ran and why.
enum class SimulationScope { kAuto, kFull, kSymmetric };

struct SimulationSpec {
  SimulationScope scope = SimulationScope::kAuto;
  SourceLocation scope_where;  // where `scope` was written (for the error of a forced symmetric)
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
  SimulationSpec simulation;
  uint64_t seed = 1;  // all randomness is drawn from this
  // Dotted keys the user wrote (file or --set), read or not by a section parser; and the keys
  // the top-level `assumed:` list marks as written from an assumption rather than known or
  // measured (sim/ledger/assumptions.h: the ledger treats those as defaults).
  std::set<std::string> stated;
  std::set<std::string> assumed;
};

// Names used in YAML, messages and results. Each `*_name` is the inverse of the loader's parse.
const char* precision_name(Precision p);
const char* optimizer_name(Optimizer o);
const char* strategy_name(SyncStrategy s);
const char* algorithm_name(AllReduceAlgorithm a);
const char* intra_node_name(IntraNodeKind k);

}  // namespace ddpsim
