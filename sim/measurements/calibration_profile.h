// A calibration profile: what `ddpsim-calibrate` measured on one machine (or what was imported
// from nccl-tests), with the fits derived from it. The simulator reads per-layer times for the
// profiled model, roofline efficiencies per layer kind for other models, device ceilings, the
// overlap slowdown and collective alpha-beta costs from it. Everything is in SI base units
// (seconds, bytes, bytes/s, FLOP/s); the YAML form is profile_yaml.h and
// scenarios/profiles/README.md.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "sim/model/layer.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct DeviceInfo {
  std::string name;                // "NVIDIA H100 80GB HBM3"
  std::string compute_capability;  // "9.0"
  double memory_bytes = 0;
  int multiprocessors = 0;
  int gpus = 0;              // local GPUs the harness saw (an imported log: GPUs per node)
  std::string driver;        // CUDA driver API version, "13.0"
  std::string cuda_runtime;  // "13.0"
  std::string cublas;        // library versions; "" when not used (e.g. an import)
  std::string cudnn;
  std::string nccl;
  std::string host;
  std::string date;  // ISO 8601 UTC, when the measurement started
  int nodes = 0;     // an imported multi-node log: its nodes; 0 = one machine
};

// One quantity timed `repeats` times after warm-up.
struct RepeatStats {
  double median = 0;  // seconds
  double min = 0;
  double max = 0;
  int repeats = 0;

  // (max - min) / median: the whole range, not a quantile, so one outlier shows.
  double spread() const { return median > 0 ? (max - min) / median : 0; }
};

// Builds the statistics of `samples` (seconds). Empty input gives all zeros.
RepeatStats repeat_stats(std::vector<double> samples);

// CUPTI activity records of one pass (forward or backward) of a layer.
struct KernelTrace {
  int kernels = 0;            // 0: CUPTI was not available, the other fields are meaningless
  double kernel_seconds = 0;  // sum of kernel durations
  double gap_seconds = 0;     // sum of idle time between consecutive kernels (launch gaps)
};

struct LayerTiming {
  std::string name;  // the zoo's layer name
  LayerKind kind = LayerKind::kElementwise;
  RepeatStats fwd;
  RepeatStats bwd;  // data and weight gradients together
  KernelTrace fwd_trace;
  KernelTrace bwd_trace;
  double fwd_flops = 0;  // whole batch, as the zoo counts them
  double bwd_flops = 0;
  double fwd_bytes = 0;  // whole batch, bytes of activations read and written
  double bwd_bytes = 0;  // estimate: the zoo gives forward bytes only (harness: 2x forward)
};

struct SkippedLayer {
  std::string name;
  LayerKind kind = LayerKind::kElementwise;
  std::string reason;  // "out of memory (cudaMalloc of 2.1 GiB)", "no kernel for ..."
};

// One optimizer update of all of a model's parameters (fp32 master weights and gradients).
struct OptimizerTiming {
  Optimizer optimizer = Optimizer::kMomentum;
  int64_t params = 0;
  RepeatStats time;
};

// The zoo model run at one batch size and precision.
struct ModelRun {
  std::string model;  // zoo key
  int batch = 0;
  Precision precision = Precision::kFp32;
  int sequence_length = 0;  // transformers; 0 otherwise
  std::vector<LayerTiming> layers;
  std::vector<SkippedLayer> skipped;
  std::vector<OptimizerTiming> optimizer;
};

struct GemmCeiling {
  Precision precision = Precision::kFp32;
  int64_t m = 0, n = 0, k = 0;
  RepeatStats time;
  double flops = 0;  // achieved FLOP/s = 2mnk / median time
};

struct CopyCeiling {
  double bytes = 0;  // bytes per copy
  RepeatStats time;
  double bandwidth = 0;  // bytes/s; device-to-device counts read + write (2 * bytes / time)
};

struct DeviceCeilings {
  std::vector<GemmCeiling> gemm;
  std::optional<CopyCeiling> d2d;  // HBM bandwidth
  std::optional<CopyCeiling> h2d;  // pinned host memory
  std::optional<CopyCeiling> d2h;

  double gemm_flops(Precision p) const;  // 0 when that precision was not measured
};

// A GEMM timed alone and while other work runs on a second stream.
struct OverlapInterference {
  RepeatStats gemm_alone;
  std::optional<RepeatStats> gemm_with_copy;       // a D2D copy in a loop on another stream
  std::optional<RepeatStats> gemm_with_allreduce;  // an NCCL all-reduce in a loop

  // The factor the simulator multiplies compute by while communication overlaps it:
  // with_allreduce / alone when measured, else with_copy / alone, else 1.
  double slowdown() const;
};

enum class CollectiveOp { kAllReduce, kAllGather, kReduceScatter, kBroadcast };

struct CollectiveSample {
  double bytes = 0;      // nccl-tests "size": the whole buffer (for all-reduce, the bucket)
  double seconds = 0;    // out-of-place time
  double fit_error = 0;  // (fitted - measured) / measured
};

// A size sweep of one collective and its alpha-beta fit. The fit's ranges cover [0, inf):
// range i gives t(S) = alpha_i + beta_i * S for min_bytes_i <= S < max_bytes_i, continuous and
// non-decreasing in S (alpha_i of a later range is an intercept and may be negative).
// gpus, nodes, device and backend say where it was measured: a table describes that machine.
struct CollectiveSweep {
  CollectiveOp op = CollectiveOp::kAllReduce;
  AllReduceAlgorithm algorithm = AllReduceAlgorithm::kAuto;  // auto: whatever NCCL picked
  int gpus = 0;                                              // ranks in the communicator
  int nodes = 0;
  std::string device;   // GPU name as the log or the driver prints it ("" = not recorded)
  std::string backend;  // "nccl 2.18.5+cuda12.2", "nccl", "gloo" ("" = not recorded)
  std::string source;   // "ddpsim-calibrate" or "nccl-tests: path"
  std::vector<CollectiveSample> samples;
  std::vector<AlphaBetaPoint> fit;
};

// The file behind `sync.alpha_beta`, read and checked once by the scenario loader
// (load_alpha_beta_file, profile_yaml.h): for every collective it times, the sweep chosen per
// algorithm as collective_sweeps() chooses. Always holds all_reduce sweeps; another collective
// is absent when the file has none.
struct AlphaBetaFile {
  std::string source;  // the path it was read from
  std::map<CollectiveOp, std::map<AllReduceAlgorithm, CollectiveSweep>> sweeps;
};

struct CalibrationProfile {
  std::string source;  // file it was read from ("" when built in code)
  DeviceInfo device;
  std::vector<ModelRun> runs;
  DeviceCeilings ceilings;
  std::map<LayerKind, double> roofline_efficiency;  // fraction of the roofline time achieved
  std::optional<OverlapInterference> overlap;
  std::vector<CollectiveSweep> collectives;
  std::vector<std::string> notes;  // e.g. "1 GPU: inter-GPU collectives need more GPUs"
};

// ---------------------------------------------------------------- lookups

struct ProfiledLayerTime {
  double fwd = 0;  // seconds for the whole batch
  double bwd = 0;
  bool exact = false;  // measured at this batch; false: scaled from the nearest batch
};

// Forward and backward time of `layer` of `model` at `batch` and `precision`. A run at that batch
// is used as measured; otherwise the run with the nearest batch (same model and precision) is
// scaled linearly by batch / measured batch. nullopt when no run has that layer.
std::optional<ProfiledLayerTime> layer_time(const CalibrationProfile& profile,
                                            const std::string& model, Precision precision,
                                            const std::string& layer, int batch);

// Roofline efficiency for a layer kind; nullopt when the profile has no layer of that kind.
std::optional<double> roofline_efficiency(const CalibrationProfile& profile, LayerKind kind);

// The all-reduce tables of the profile, keyed by algorithm (as `sync.alpha_beta` holds them).
// Per algorithm the sweep measured on the most GPUs is used; a one-GPU sweep never is (a
// one-rank all-reduce moves nothing between GPUs). Two usable sweeps of one algorithm with the
// same GPU count are ambiguous: load_alpha_beta_file rejects them, this function keeps the last.
std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>> all_reduce_tables(
    const CalibrationProfile& profile);
// The same choice, as the whole sweeps (samples and where they were measured).
std::map<AllReduceAlgorithm, CollectiveSweep> all_reduce_sweeps(const CalibrationProfile& profile);
// The same choice among the sweeps of any collective (all_reduce_sweeps: op kAllReduce).
std::map<AllReduceAlgorithm, CollectiveSweep> collective_sweeps(const CalibrationProfile& profile,
                                                                CollectiveOp op);

// Time of one all-reduce of `bytes` from a table: the rows of `algorithm`, else the rows of
// `auto` (what NCCL picked when measured). The range with min_bytes <= bytes < max_bytes gives
// alpha + beta * bytes; sizes below the first range use the first, above the last use the last.
// nullopt when the table has neither the algorithm nor auto.
std::optional<double> alpha_beta_time(
    const std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>>& table,
    AllReduceAlgorithm algorithm, double bytes);

// Evaluates one fitted table (ranges as above).
double alpha_beta_predict(const std::vector<AlphaBetaPoint>& ranges, double bytes);

// ---------------------------------------------------------------- names used in YAML

const char* collective_op_key(CollectiveOp op);  // "all_reduce", "all_gather", ...
std::optional<CollectiveOp> parse_collective_op_key(const std::string& key);
std::optional<AllReduceAlgorithm> parse_algorithm_name(const std::string& name);  // algorithm_name
std::optional<Precision> parse_precision_name(const std::string& name);           // precision_name

}  // namespace ddpsim
