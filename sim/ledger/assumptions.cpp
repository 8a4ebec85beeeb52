// The rows of the assumption ledger (assumptions.h). Over 500 lines because it is one table: each
// of its rows carries the public source of its range and the measurement that replaces it, in
// full, beside the code that reads and sets the value; splitting the table would split that.
#include "sim/ledger/assumptions.h"

#include <fmt/format.h>

#include <limits>
#include <memory>

#include "sim/cost/normal_maximum.h"
#include "sim/cost/transport_rates.h"
#include "sim/model/attention_choice.h"
#include "sim/scenario/collective_algorithms.h"
#include "sim/scenario/enum_names.h"

namespace ddpsim {
namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

// Bandwidths written from a fraction of line rate (docs/model-assumptions.md: NVLink and PCIe
// 0.77, NICs 0.86): a relative range is the range of fractions over that nominal fraction.
constexpr double kNvlinkNominal = 0.77, kNicNominal = 0.86, kPcieNominal = 0.77;

bool multi_gpu_node(const Scenario& s) { return s.cluster.gpus_per_node > 1; }
bool pcie_node(const Scenario& s) {
  return multi_gpu_node(s) && s.cluster.intra_node.kind == IntraNodeKind::kPcie;
}
bool crosses_network(const Scenario& s) { return s.cluster.nodes > 1; }
bool staged_somewhere(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  const bool intra = pcie_node(s) && (!c.intra_node.p2p || c.host.sockets > 1);
  const bool nic = crosses_network(s) && !c.nic.gpudirect;
  return intra || nic || !s.data.synthetic;
}
// Compute is overlapped by NCCL kernels: gradients synchronise while backward still runs.
bool nccl_overlaps_compute(const Scenario& s) {
  return s.cluster.total_gpus() > 1 && s.sync.strategy == SyncStrategy::kAllReduce &&
         (s.sync.overlap || s.sync.sharding.strategy != Sharding::kNone);
}

// NCCL's latency table prices the job's collectives (sync_factory.cpp): sync.latency_model nccl
// on 2+ GPUs, no measured alpha-beta table, no parameter server, and a ring or tree call in flow
// mode (the chunked mode charges alpha per step; tree and NVLS have no chunked mode; under
// hybrid sharding the node and rail groups run NCCL rings whatever the algorithm).
bool nccl_latency_in_use(const Scenario& s) {
  const SyncSpec& y = s.sync;
  if (s.cluster.total_gpus() <= 1 || y.latency_model != LatencyModel::kNccl) return false;
  if (y.strategy == SyncStrategy::kParameterServer) return false;
  if (y.alpha_beta_timed()) return false;
  const bool flow = y.mode == CollectiveMode::kFlow;
  if (y.sharding.strategy != Sharding::kNone) {
    // Reduce-scatter and all-gather run the ring in the scenario's mode (make_collective).
    const bool nccl_ring = collective_algorithm(y.algorithm).sharded == ShardedRun::kRing;
    return flow && (nccl_ring || y.sharding.strategy == Sharding::kHybrid);
  }
  switch (collective_algorithm(y.algorithm).nccl_latency) {
    case NcclLatencyUse::kAlways:
      return true;
    case NcclLatencyUse::kFlowMode:
      return flow;
    case NcclLatencyUse::kNever:
      return false;
  }
  return false;
}

void set_pcie(Scenario* s, double v) {
  ClusterSpec& c = s->cluster;
  // GPU-to-GPU traffic on kind pcie crosses the PCIe link (the loader copies it).
  if (c.intra_node.kind == IntraNodeKind::kPcie && c.intra_node.bandwidth == c.pcie_bandwidth)
    c.intra_node.bandwidth = v;
  if (c.pcie_switch.gpus > 0 && c.pcie_switch.uplink == c.pcie_bandwidth) c.pcie_switch.uplink = v;
  c.pcie_bandwidth = v;
}

void set_pcie_switch(Scenario* s, double v) {
  ClusterSpec& c = s->cluster;
  c.pcie_switch.gpus = static_cast<int>(v);
  // One switch's uplink is one x16 link of the same generation as the GPUs'.
  c.pcie_switch.uplink = c.pcie_switch.gpus > 0 ? c.pcie_bandwidth : 0;
}

// model.attention as a number (the ledger's value and the draws' choice): explicit, tested.
void set_attention_code(Scenario* s, double code) {
  const Attention a = attention_from_code(code);
  ModelSpec& m = s->model;
  m.attention = a;
  // A zoo model is built from the spec (build_model re-costs its attention); a Hugging Face
  // config's model was built by the loader: re-cost a copy, the shared original stays as read.
  if (m.loaded && m.file.empty()) {
    auto copy = std::make_shared<Model>(*m.loaded);
    if (set_attention(copy.get(), a)) m.loaded = std::move(copy);
  }
}

bool mixed_precision(const Scenario& s) {
  const Precision p = s.training.precision;
  return p == Precision::kFp16 || p == Precision::kBf16 || p == Precision::kFp8;
}

// Boards with a PCIe switch put all GPUs of a socket behind it: one switch per socket.
double gpus_per_switch(const Scenario& s) {
  return s.cluster.gpus_per_node / s.cluster.host.sockets;
}

// Sinha et al. (SC22, arXiv 2208.11035) give a cluster's "performance variation" as the span of
// its box plot's whisker limits over the median GPU: (Q3 + 1.5 IQR) - (Q1 - 1.5 IQR) = 4 IQR,
// the outliers beyond them left out (the authors' artifact, hal-uw/gpu_variability_sc22_artifact,
// plot_script/plot_aggregated.py). A normal spread has IQR = 2 Phi^-1(0.75) sigma, so a
// variation is 5.396 sigma: 8 % on average -> sigma 1.48 %, 22 % at most -> 4.08 %.
constexpr double kUpperQuartileZ = 0.6744897501960817;  // Phi^-1(0.75)
constexpr double kVariationInSigmas = 4 * 2 * kUpperQuartileZ;
constexpr double kMostVariableCluster = 0.22, kAverageCluster = 0.08;

// A step waits for the slowest of the job's N GPUs; the compute it was given was timed (or
// modelled) for one GPU of the same spread: the slowest lies z(N) sigma beyond it on average.
double slowest_of_job(const Scenario& s) {
  return 1 + expected_normal_maximum(s.cluster.total_gpus()) * kGpuSpeedSigmaHigh;
}

}  // namespace

double attention_code(Attention a) {
  switch (a) {
    case Attention::kEager:
      return 0;
    case Attention::kSdpa:
      return 1;
    case Attention::kFlash:
      return 2;
  }
  return 0;
}

Attention attention_from_code(double code) {
  if (code < 0.5) return Attention::kEager;
  return code < 1.5 ? Attention::kSdpa : Attention::kFlash;
}

const double kGpuSpeedSigmaHigh = kMostVariableCluster / kVariationInSigmas;

const std::vector<AssumptionRow>& assumption_rows() {
  static const std::vector<AssumptionRow> rows = {
      {
          .key = "cluster.intra_node.bandwidth",
          .label = "intra-node (NVLink) bandwidth",
          .unit = InputUnit::kBandwidth,
          .range = RangeKind::kRelative,
          .low = 0.68 / kNvlinkNominal,
          .high = 0.84 / kNvlinkNominal,
          .get = [](const Scenario& s) { return s.cluster.intra_node.bandwidth; },
          .set = [](Scenario* s, double v) { s->cluster.intra_node.bandwidth = v; },
          .applies =
              [](const Scenario& s) {
                return multi_gpu_node(s) && s.cluster.intra_node.kind != IntraNodeKind::kPcie;
              },
          .stated_by = {"cluster.intra_node.bandwidth"},
          .why =
              "what NCCL's ring reaches over NVLink: 68-84 % of line rate (NVIDIA/nccl-tests#149: "
              "20 of 25 GB/s per link, ~230 of 300 on A100; #178: 208 of 300; #212: 370 of 450 on "
              "H100)",
          .measure =
              "intra-node path: run nccl-tests all_reduce_perf on one node, then `ddpsim calibrate "
              "--fit-platform`",
      },
      {
          .key = "cluster.pcie",
          .label = "PCIe bandwidth per GPU",
          .unit = InputUnit::kBandwidth,
          .range = RangeKind::kRelative,
          .low = 0.65 / kPcieNominal,
          .high = 0.85 / kPcieNominal,
          .get = [](const Scenario& s) { return s.cluster.pcie_bandwidth; },
          .set = set_pcie,
          .applies =
              [](const Scenario& s) {
                return pcie_node(s) || (crosses_network(s) && !s.cluster.nic.gpudirect) ||
                       !s.data.synthetic;
              },
          .stated_by = {"cluster.pcie"},
          .why = "65-85 % of PCIe line rate: TLP headers cap 256-byte payloads at ~86 % (PCI-SIG "
                 "framing), CUDA bandwidthTest reports 12-13 of 15.75 GB/s on gen3 x16",
          .measure =
              "PCIe path: run CUDA bandwidthTest (pinned) and nccl-tests all_reduce_perf on one "
              "node, then `ddpsim calibrate --fit-platform`",
      },
      {
          .key = "cluster.pcie_switch.gpus",
          .label = "GPUs sharing a PCIe switch",
          .unit = InputUnit::kGpusPerSwitch,
          .range = RangeKind::kChoice,
          .low = 0,
          .high = 0,  // high: gpus_per_switch (high_for)
          .get = [](const Scenario& s) { return double(s.cluster.pcie_switch.gpus); },
          .set = set_pcie_switch,
          .applies = pcie_node,
          .stated_by = {"cluster.pcie_switch"},
          .why =
              "boards without NVLink put GPUs on a root port each or behind one PCIe switch per "
              "socket (PLX/Broadcom PEX boards): 0 or all GPUs of a socket, more than 2x apart for "
              "staged traffic",
          .measure =
              "PCIe topology: run `nvidia-smi topo -m` (PIX/PXB = a shared switch, NODE/PHB = own "
              "root port) and state cluster.pcie_switch",
          .high_for = gpus_per_switch,
      },
      {
          .key = "cluster.host.bandwidth",
          .label = "host memory bandwidth (DMA)",
          .unit = InputUnit::kBandwidth,
          .range = RangeKind::kRelative,
          .low = 0.35,
          .high = 1.25,
          .get = [](const Scenario& s) { return s.cluster.host.bandwidth; },
          .set = [](Scenario* s, double v) { s->cluster.host.bandwidth = v; },
          .applies = staged_somewhere,
          .stated_by = {"cluster.host.bandwidth"},
          .why =
              "memory a socket's DMA reaches: from two channels of DDR5 on a desktop board (~70 "
              "GB/s) to eight of DDR4-3200 (204.8 GB/s line, STREAM ~150) and more; JEDEC rates, "
              "McCalpin's STREAM",
          .measure =
              "host memory: run STREAM (or CUDA bandwidthTest with several GPUs at once) on one "
              "node and state cluster.host.bandwidth",
      },
      {
          .key = "cluster.nic.bandwidth",
          .label = "NIC effective bandwidth",
          .unit = InputUnit::kBandwidth,
          .range = RangeKind::kRelative,
          .low = 0.62 / kNicNominal,
          .high = 0.96 / kNicNominal,
          .get = [](const Scenario& s) { return s.cluster.nic.bandwidth; },
          .set = [](Scenario* s, double v) { s->cluster.nic.bandwidth = v; },
          .applies =
              [](const Scenario& s) {
                return crosses_network(s) && s.cluster.nic.transport == NicTransport::kRdma;
              },
          .stated_by = {"cluster.nic.bandwidth"},
          .why = "62-96 % of line rate for NCCL over RDMA (NVIDIA/nccl-tests#119: 24 GB/s per 200G "
                 "NIC is peak; NVIDIA/nccl#412: 16 GB/s with the NIC on the CPU; #495: 600 of 800 "
                 "Gb/s on RoCE)",
          .measure = "network: run nccl-tests all_reduce_perf on two nodes, then `ddpsim calibrate "
                     "--fit-platform`",
      },
      {
          .key = "cluster.nic.efficiency",
          .label = "TCP share of the NIC",
          .unit = InputUnit::kFraction,
          .range = RangeKind::kRelative,
          .low = 0.35,
          .high = 1.3,
          .floor = 0.01,
          .ceiling = kTcpHeaderEfficiency,
          .get = [](const Scenario& s) { return s.cluster.nic.efficiency; },
          .set = [](Scenario* s, double v) { s->cluster.nic.efficiency = v; },
          .applies =
              [](const Scenario& s) {
                return crosses_network(s) && s.cluster.nic.transport == NicTransport::kTcp;
              },
          .stated_by = {"cluster.nic.efficiency", "cluster.nic.stream_bandwidth",
                        "cluster.nic.streams"},
          .why = "what NCCL's sockets reach of the port: public socket runs on RDMA-capable wires "
                 "reached 3-12x below RDMA (docs/transports.md: Polaris, AWS g6, DGX Spark, "
                 "horovod#476)",
          .measure =
              "TCP network: run nccl-tests all_reduce_perf on two nodes with NCCL_IB_DISABLE=1, "
              "then `ddpsim calibrate --fit-platform` (under transport: tcp it fits nic.bandwidth "
              "with this efficiency held: their product, all the efficiency scales, is then "
              "measured)",
      },
      {
          .key = "compute.efficiency",
          .label = "roofline compute efficiency",
          .unit = InputUnit::kFraction,
          .range = RangeKind::kAbsolute,
          .low = 0.30,
          .high = 0.60,
          .floor = 0.01,
          .ceiling = 1,
          .get = [](const Scenario& s) { return s.compute.efficiency; },
          .set = [](Scenario* s, double v) { s->compute.efficiency = v; },
          .applies = [](const Scenario& s) { return s.compute.mode == ComputeMode::kRoofline; },
          .stated_by = {"compute.efficiency"},
          .why = "achieved share of dense peak in training: 30-60 % (Narayanan et al. SC21, "
                 "Megatron-LM: 44-52 % on A100; Chowdhery et al. 2022, PaLM: 46 % MFU)",
          .measure =
              "compute: time one GPU with `ddpsim calibrate --model NAME` or a torch.profiler "
              "trace (`ddpsim calibrate --import-torch-trace`) and use compute.mode: profile",
      },
      {
          .key = "compute.memory_efficiency",
          .label = "roofline memory efficiency",
          .unit = InputUnit::kFraction,
          .range = RangeKind::kAbsolute,
          .low = 0.60,
          .high = 0.90,
          .floor = 0.01,
          .ceiling = 1,
          .get = [](const Scenario& s) { return s.compute.memory_efficiency; },
          .set = [](Scenario* s, double v) { s->compute.memory_efficiency = v; },
          .applies = [](const Scenario& s) { return s.compute.mode == ComputeMode::kRoofline; },
          .stated_by = {"compute.memory_efficiency"},
          .why = "share of HBM bandwidth streaming kernels reach: BabelStream ~90 % on A100/H100 "
                 "(Deakin et al.), framework element-wise kernels 60-85 %",
          .measure =
              "compute: time one GPU with `ddpsim calibrate --model NAME` (its d2d ceiling) and "
              "use compute.mode: profile",
      },
      {
          .key = "compute.overlap_slowdown",
          .label = "compute slowdown beside NCCL",
          .unit = InputUnit::kFactor,
          .range = RangeKind::kAbsolute,
          .low = 1.0,
          .high = 1.4,
          .floor = 1,
          .get =
              [](const Scenario& s) {
                return s.compute.overlap_slowdown > 0 ? s.compute.overlap_slowdown : 1.0;
              },
          .set = [](Scenario* s, double v) { s->compute.overlap_slowdown = v; },
          .applies = nccl_overlaps_compute,
          .stated_by = {"compute.overlap_slowdown"},
          .why =
              "NCCL kernels take SMs and HBM from compute they overlap: 18.9 % slower on average, "
              "40 % at most (Lee et al., arXiv 2507.03114, 2025; draws are triangular with that "
              "mean and maximum); the default assumes none",
          .measure =
              "overlap: run `ddpsim calibrate --model NAME` with its overlap measurement (profile "
              "overlap section) and use compute.mode: profile",
          // The draws' mean is the source's 1.189 on [1.0, 1.4].
          .mode = 3 * 0.189 / 0.4 - 1,
      },
      {
          .key = "compute.slowest_gpu",
          .label = "slowest GPU's compute",
          .unit = InputUnit::kFactor,
          .range = RangeKind::kAbsolute,
          .low = 1.0,
          .high = 1.0,  // high: slowest_of_job (high_for)
          .floor = 1,
          .get = [](const Scenario& s) { return s.compute.slowest_gpu; },
          .set = [](Scenario* s, double v) { s->compute.slowest_gpu = v; },
          .applies =
              [](const Scenario& s) {
                return s.cluster.total_gpus() > 1 && s.stragglers.kind == StragglerKind::kNone;
              },
          .stated_by = {"stragglers"},
          .why =
              "identical GPUs differ: 8 % average, 22 % at most, performance variation (whisker "
              "span over the median, outliers excluded) across the GPUs of five HPC clusters "
              "(Sinha et al., SC22, arXiv 2208.11035), a per-GPU sigma of 1.5 % and 4.1 %; a "
              "synchronous step waits for the slowest of N, z(N) sigma beyond the one calibrated "
              "GPU: the range is 1 to 1 + z(N) x 4.1 %, the most variable cluster, drawn "
              "triangular with its mean at the average cluster's 1.5 %; the default assumes every "
              "GPU as fast as the calibrated one",
          .measure =
              "GPU spread: time the same step on every GPU of the job (or state stragglers: from a "
              "measured spread)",
          .high_for = slowest_of_job,
          // The draws' mean is the average cluster's spread, 8 of the range's 22 %.
          .mode = 3 * kAverageCluster / kMostVariableCluster - 1,
      },
      {
          .key = "compute.time_scale",
          .label = "compute time from another device",
          .unit = InputUnit::kFactor,
          .range = RangeKind::kAbsolute,
          .low = 0.7,
          .high = 1.4,
          .floor = 0.01,
          .get = [](const Scenario& s) { return s.compute.time_scale; },
          .set = [](Scenario* s, double v) { s->compute.time_scale = v; },
          .applies = [](const Scenario& s) { return !s.compute.profile_mismatch.empty(); },
          .stated_by = {},
          .why = "a profile measured on a sibling device (H200 for H100: same SMs, 1.43x the HBM "
                 "bandwidth, NVIDIA datasheets) moves memory-bound layers up to 1.4x; other "
                 "generations: measure",
          .measure = "compute: profile the scenario's own GPU and precision with `ddpsim calibrate "
                     "--model NAME`",
      },
      {
          .key = "compute.framework_overhead",
          .label = "data-parallel framework overhead",
          .unit = InputUnit::kFactor,
          .range = RangeKind::kAbsolute,
          .low = 1.0,
          .high = 1.10,
          .floor = 1,
          .get = [](const Scenario& s) { return s.compute.framework_overhead; },
          .set = [](Scenario* s, double v) { s->compute.framework_overhead = v; },
          .applies = [](const Scenario& s) { return s.cluster.total_gpus() > 1; },
          .stated_by = {"compute.framework_overhead"},
          .why =
              "the data-parallel framework's own per-step work (reducer hooks, gradient-to-bucket "
              "copies, launches, host synchronisation), which a single-GPU step does not pay: 3-10 "
              "% of a ResNet-50 step between DDP implementations (pytorch/pytorch#4870: 0.159 vs "
              "0.164 s; #5064: 0.154 -> 0.139 s and 0.116 -> 0.109 s; #18953: 'a couple percent or "
              "more'), 2-20 % of backward between reducers (#61507); the default assumes none",
          .measure = "framework overhead: profile one GPU of the job (torch.profiler) and state "
                     "compute.framework_overhead as its step time outside communication over the "
                     "single-GPU step",
      },
      // Rows appended after the first twelve keep the design's earlier columns (and so every
      // band of a scenario these rows do not apply to) as they were.
      {
          .key = "model.attention",
          .label = "attention implementation",
          .unit = InputUnit::kAttention,
          .range = RangeKind::kChoice,
          .low = 0,   // eager
          .high = 1,  // sdpa: fused (ddpsim costs flash as sdpa)
          .ceiling = 2,
          .get =
              [](const Scenario& s) {
                return s.model.attention ? attention_code(*s.model.attention) : 0;
              },
          .set = set_attention_code,
          .applies =
              [](const Scenario& s) {
                // Roofline: the attention cores' time follows the choice. A measured step or
                // profile timed whatever ran; a model file's layers cannot be re-costed.
                return s.model.attention && s.model.file.empty() &&
                       s.compute.mode == ComputeMode::kRoofline;
              },
          .stated_by = {"model.attention"},
          .why = "eager attention writes and keeps the heads x q x kv probabilities, SDPA/flash "
                 "kernels neither: transformers runs sdpa by default since PyTorch 2.1.1 "
                 "(huggingface/transformers#27940), older releases and attn_implementation='eager' "
                 "run eager; torch.nn.functional.scaled_dot_product_attention picks a fused kernel",
          .measure =
              "attention: run one step under torch.profiler and read which attention kernel ran "
              "(flash/efficient-attention kernels or bmm + softmax), then state model.attention",
      },
      {
          .key = "sync.gradient_dtype",
          .label = "gradient dtype on the wire",
          .unit = InputUnit::kGradientBytes,
          .range = RangeKind::kChoice,
          .low = 2,   // fp16/bf16
          .high = 4,  // fp32
          .floor = 2,
          .ceiling = 4,
          .get = [](const Scenario& s) { return double(s.sync.gradient_bytes); },
          .set = [](Scenario* s, double v) { s->sync.gradient_bytes = v < 3 ? 2 : 4; },
          .applies =
              [](const Scenario& s) { return s.cluster.total_gpus() > 1 && mixed_precision(s); },
          .stated_by = {"sync.gradient_dtype", "training.gradient_dtype"},
          .why =
              "under mixed precision DDP all-reduces .grad in the parameters' fp32 unless a comm "
              "hook compresses it (fp16_compress_hook, bf16_compress_hook: "
              "torch.distributed.algorithms.ddp_comm_hooks); FSDP reduces in "
              "MixedPrecision.reduce_dtype, param_dtype unless set to fp32: 2 or 4 bytes per "
              "gradient",
          .measure =
              "gradient dtype: read the training script (DDP register_comm_hook, FSDP "
              "MixedPrecision reduce_dtype) or the dtype of the all-reduces in a torch.profiler "
              "trace, then state sync.gradient_dtype",
      },
      {
          .key = "data.decode.samples_per_core",
          .label = "CPU decode rate per core",
          .unit = InputUnit::kSamplesPerSecond,
          .range = RangeKind::kRelative,
          .low = 0.5,
          .high = 2.0,
          .get = [](const Scenario& s) { return s.data.samples_per_core; },
          .set = [](Scenario* s, double v) { s->data.samples_per_core = v; },
          .applies =
              [](const Scenario& s) {
                return !s.data.synthetic && s.data.decode == DecodeKind::kCpu;
              },
          .stated_by = {"data.decode.samples_per_core"},
          .why =
              "decode + augment per core differs 2x between CPUs (Pillow decodes ImageNet at "
              "360-726 images/s on one core of five 2023-25 cloud CPUs, ternaus/imread_benchmark, "
              "Iglovikov & Kosarevsky, arXiv 2605.08731) and about 2x between decoders (PIL vs "
              "libjpeg-turbo, cybertronai/imagenet18#5); tf.data reached 275 per core with "
              "random-resized crop on a DGX-1 (tensorpack/benchmarks)",
          .measure =
              "input pipeline: time the data loader alone (iterate it without training) with one "
              "worker and state data.decode.samples_per_core",
      },
      {
          .key = "sync.nccl_latency",
          .label = "NCCL latency (x its v2.20 table)",
          .unit = InputUnit::kFactor,
          .range = RangeKind::kAbsolute,
          .low = 0.7,
          .high = 2.5,
          .floor = 0.01,
          .ceiling = 10,
          .get = [](const Scenario& s) { return s.sync.nccl_latency; },
          .set = [](Scenario* s, double v) { s->sync.nccl_latency = v; },
          .applies = nccl_latency_in_use,
          .stated_by = {"sync.nccl_latency"},
          .why =
              "NCCL's base and per-hop latencies (tuning.cc) differ between releases and from "
              "measured small calls: NCCL 2.7-2.8's table charges 0.68-0.77x v2.20's for LL on 8 "
              "NVLink GPUs (ring base 3.6 vs 6.6 us, hop 0.47 vs 0.6 us); 8 B all-reduce on 8 H20 "
              "in one node took 12.5 us against the table's 15 (deepseek-ai/DeepEP#303), on 2 A100 "
              "nodes over HDR 19-20 us against 15.4 (NVIDIA/nccl-tests#150), on 2 H100 nodes 64 us "
              "against NCCL's own 25.2 (NVIDIA/nccl#1453)",
          .measure =
              "small-message latency: run nccl-tests all_reduce_perf -b 8 -e 64K on the job's "
              "nodes, then `ddpsim calibrate --fit-platform` (or state sync.nccl_latency as "
              "measured over predicted time at 8 B)",
      },

  };
  return rows;
}

const AssumptionRow* find_assumption_row(const std::string& key) {
  for (const AssumptionRow& row : assumption_rows())
    if (key == row.key) return &row;
  return nullptr;
}

std::string assumption_keys() {
  std::string keys;
  for (const AssumptionRow& row : assumption_rows())
    if (!row.stated_by.empty()) keys += (keys.empty() ? "" : ", ") + std::string(row.key);
  return keys;
}

std::string AssumptionRow::format(double value) const {
  auto trimmed = [](double v) { return fmt::format("{:.3g}", v); };
  switch (unit) {
    case InputUnit::kBandwidth:
      return trimmed(value / 1e9) + " GB/s";
    case InputUnit::kFactor:
      return trimmed(value) + "x";
    case InputUnit::kSamplesPerSecond:  // whole numbers from 100 up, three significant digits below
      return (value >= 100 ? fmt::format("{:.0f}", value) : trimmed(value)) + " samples/s";
    case InputUnit::kAttention:  // choices print as what they stand for
      return enum_name(attention_from_code(value));
    case InputUnit::kGradientBytes:
      return value < 3 ? "fp16/bf16" : "fp32";
    case InputUnit::kFraction:
      return fmt::format("{:.0f} %", 100 * value);
    case InputUnit::kGpusPerSwitch:
      return fmt::format("{:g} GPUs/switch", value);
  }
  return fmt::format("{:g}", value);
}

}  // namespace ddpsim
