#include "sim/cost/nccl_tuning.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/scenario/collective_algorithms.h"
#include "sim/scenario/enum_names.h"

namespace ddpsim {
namespace {

constexpr int kLL = 0, kLL128 = 1, kSimple = 2;
constexpr double kUs = 1e-6;
constexpr double kGBps = 1e9;

// tuning.cc (v2.20.3) tables, microseconds; [algorithm: tree, ring][protocol: LL, LL128, Simple].
constexpr double kBaseLat[2][3] = {{6.8, 14.0, 0}, {6.6, 14.0, 8.4}};
// [hardware: NVLink, PCI, network][algorithm][protocol]
constexpr double kHwLat[3][2][3] = {{{.6, 1.25, 28}, {.6, 1.9, 3.4}},
                                    {{1.0, 1.9, 28}, {1.0, 2.5, 5.7}},
                                    {{5.0, 8.5, 28}, {2.7, 4.0, 14.0}}};
// LL bus-bandwidth ceiling, GB/s: [Volta / Ampere / Hopper on one node; Intel / AMD across
// nodes][1 node, 2 nodes, more].
constexpr double kLLMaxBw[3][3] = {{39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {87.7, 22.5, 19.0}};
// NVLS and NVLSTree (Simple only): hwLat[NVLink][NVLS] and hwLat[Net][NVLSTree]; algbw = 5/6 of
// the links' rate.
constexpr double kNvlsLat = 23, kNvlsTreeNetLat = 14, kNvlsRatio = 5.0 / 6.0;
// PAT, v2.23.4 (nccl_tuning.h): base 8 us, the tree's network latency over 3.5 per log2 of the
// nodes, 2.8 us per rank, 0.85 of the ring's bus bandwidth.
constexpr double kPatBaseLat = 8, kPatNetLat = 14, kPatLogDivisor = 3.5, kPatPerRankLat = 2.8;
constexpr double kPatBusFactor = 0.85;
// Trees stray from the model at medium sizes: bandwidth factor per log2(bytes / 64).
constexpr double kTreeCorrection[3][23] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7,  .7,  .7,  .6, .5,
     .4,  .4,  .5,  .6,  .7, .8, .9, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7,  .6, .6,
     .6,  .6,  .6,  .6,  .8,  .9, .9, .9, .9, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9}};

int proto_index(NcclProtocol p) {
  switch (p) {
    case NcclProtocol::kLL:
      return kLL;
    case NcclProtocol::kLL128:
      return kLL128;
    default:
      return kSimple;
  }
}

bool is_nvls(NcclAlgorithm a) { return a == NcclAlgorithm::kNvls || a == NcclAlgorithm::kNvlsTree; }

int log2i(long long n) {  // NCCL's: floor(log2 n), 0 for n <= 1
  int l = 0;
  while (n >>= 1) ++l;
  return l;
}

double ll_max_bw(const NcclSetting& s) {
  const int cc_index = s.compute_capability >= 90 ? 2 : s.compute_capability >= 80 ? 1 : 0;
  const int by_nodes = s.nodes <= 2 ? s.nodes - 1 : 2;
  const int by_arch = s.nodes == 1 ? cc_index : (s.cpu == CpuVendor::kAmd ? 1 : 0);
  return kLLMaxBw[by_arch][by_nodes] * kGBps;
}

}  // namespace

NcclSetting nccl_setting(const ClusterSpec& c, int channels) {
  NcclSetting s;
  s.ranks = c.total_gpus();
  s.nodes = c.nodes;
  const bool nvlink = c.gpus_per_node > 1 && c.intra_node.kind != IntraNodeKind::kPcie;
  s.intra = nvlink ? NcclHardware::kNvLink : NcclHardware::kPci;
  s.compute_capability = c.gpu.compute_capability;
  s.cpu = c.host.cpu;
  const int cc = c.gpu.compute_capability;
  const bool tested_arch = cc == 70 || cc == 80 || cc == 90;
  // tuning.cc enables LL128 only with NVLink inside the node (typeIntra <= NVB) and the NIC
  // within a PCIe switch of the GPU across nodes (typeInter <= PXB: GPUDirect RDMA).
  s.ll128 = tested_arch && (c.gpus_per_node == 1 || nvlink) && (c.nodes == 1 || c.nic.gpudirect);
  s.channels = std::max(1, channels);
  s.intra_hop = c.intra_node.latency;
  s.net_hop = c.nic.latency + c.nic.message_cost;
  return s;
}

double nccl_latency(const NcclSetting& s, NcclAlgorithm a, NcclProtocol p, double bytes,
                    CollectiveOp op) {
  if (s.ranks <= 1) return 0;
  const double k = s.latency_scale;  // on the table's values only, never on the cluster's hops
  if (a == NcclAlgorithm::kPat) {
    if (op == CollectiveOp::kAllReduce)
      throw std::invalid_argument("nccl_latency: NCCL never runs PAT for all-reduce");
    const double inter = k * kPatNetLat + s.net_hop / kUs;
    return (k * kPatBaseLat + log2i(s.nodes) * inter / kPatLogDivisor +
            k * kPatPerRankLat * s.ranks) *
           kUs;
  }
  if (is_nvls(a)) {
    // tuning.cc: NVLS's latency is its NVLink hop alone; NVLSTree adds the tree's network hops.
    const double nvls = k * kNvlsLat + s.intra_hop / kUs;
    if (a == NcclAlgorithm::kNvls || s.nodes == 1) return nvls * kUs;
    return (nvls + 2 * log2i(s.nodes) * (k * kNvlsTreeNetLat + s.net_hop / kUs)) * kUs;
  }
  const int ai = static_cast<int>(a), pi = proto_index(p);
  const double intra_hw = k * kHwLat[static_cast<int>(s.intra)][ai][pi] + s.intra_hop / kUs;
  const double inter = k * kHwLat[static_cast<int>(NcclHardware::kNet)][ai][pi] + s.net_hop / kUs;
  double lat = k * kBaseLat[ai][pi];
  if (a == NcclAlgorithm::kRing) {
    // tuning.cc: nsteps and nInterSteps per collective.
    const bool all_reduce = op == CollectiveOp::kAllReduce;
    const int steps = all_reduce ? 2 * (s.ranks - 1) : s.ranks - 1;
    const int inter_steps = all_reduce ? (s.nodes > 1 ? 2 * s.nodes : 0) : s.nodes - 1;
    double intra = intra_hw;
    if (s.nodes > 1) {
      // Inter-node rings still launch every step through the network proxy.
      const double overhead = k * (s.cpu == CpuVendor::kAmd ? 2.0 : 1.0) * (pi == kSimple ? 3 : 1);
      intra = std::max(intra, overhead);
    }
    lat += (steps - inter_steps) * intra + inter_steps * inter;
    const double per_rank = bytes / (static_cast<double>(s.channels) * s.ranks);
    if (all_reduce && pi == kSimple && s.nodes > 1 && per_rank >= 64)
      lat *= s.compute_capability < 80 ? 1.9 : 1.4;  // plateau effect of ring
  } else {
    const int per_node = s.ranks / s.nodes;
    lat += 2 * ((per_node - 1) * intra_hw + log2i(s.nodes) * inter);
  }
  return lat * kUs;
}

double nccl_algbw(const NcclSetting& s, NcclAlgorithm a, NcclProtocol p, double bytes,
                  double links_algbw, CollectiveOp op) {
  if (s.ranks <= 1) return links_algbw;
  // NVLS moves what its flows carry (S (1+1/g) per port on one node, the tree's S/C per NIC
  // across nodes) at 5/6 of the links' rate (nccl_tuning.h).
  if (is_nvls(a)) return links_algbw * kNvlsRatio;
  if (a == NcclAlgorithm::kPat) {
    // The ring's bus bandwidth ((P-1)/P of its algorithm bandwidth for these calls) x 0.85, which
    // NCCL takes as PAT's algorithm bandwidth.
    return std::min(links_algbw, links_algbw * (s.ranks - 1.0) / s.ranks * kPatBusFactor);
  }
  const int pi = proto_index(p);
  const bool ring = a == NcclAlgorithm::kRing;
  // Bus bandwidth as NCCL counts it (nChannels * bw): the ring moves nsteps/P of the buffer per
  // rank (2(P-1)/P for all-reduce, (P-1)/P for reduce-scatter and all-gather), the tree twice
  // the buffer (algbw = busBw / 2).
  const bool all_reduce = op == CollectiveOp::kAllReduce;
  const double steps = all_reduce ? 2.0 * (s.ranks - 1) : s.ranks - 1.0;
  const double ratio = ring ? steps / s.ranks : 2.0;
  double bus = links_algbw * ratio;
  const double ppn = static_cast<double>(s.ranks) / s.nodes;
  if (ring) {
    // LL: a quarter of the bus bandwidth, a third for reduce-scatter / all-gather on one node.
    if (pi == kLL) bus = std::min(ll_max_bw(s), bus / (s.nodes > 1 || all_reduce ? 4 : 3));
    if (pi == kLL128) bus *= ppn < 2 ? 0.7 : 0.92;
  } else {
    bus *= 0.92;
    if (pi == kLL) bus = std::min(bus / 3.8, ll_max_bw(s));
    if (pi == kLL128) bus *= s.nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0;
    const int log_size = log2i(static_cast<long long>(bytes) >> 6);
    if (log_size < 23) bus *= kTreeCorrection[pi][log_size];
  }
  return std::min(links_algbw, bus / ratio);
}

bool nccl_protocol_enabled(const NcclSetting& s, NcclProtocol p) {
  return p != NcclProtocol::kLL128 || s.ll128;
}

bool nccl_algorithm_runs(NcclAlgorithm a, NcclProtocol p) {
  return (!is_nvls(a) && a != NcclAlgorithm::kPat) || p == NcclProtocol::kSimple;
}

bool auto_may_run_pat(const Scenario& s) {
  const SyncSpec& y = s.sync;
  const ClusterSpec& c = s.cluster;
  return y.algorithm == AllReduceAlgorithm::kAuto && y.sharding.strategy != Sharding::kNone &&
         y.latency_model == LatencyModel::kNccl && y.mode == CollectiveMode::kFlow &&
         !y.alpha_beta_timed() && c.gpus_per_node == 1 && c.nodes > 1 &&
         (y.protocol == NcclProtocol::kAuto || y.protocol == NcclProtocol::kSimple);
}

bool nvls_supported(const ClusterSpec& c) {
  return c.intra_node.kind == IntraNodeKind::kNvSwitch && c.gpu.compute_capability >= 90 &&
         c.gpus_per_node > 2;
}

namespace {

// The all-reduce algorithms besides NVLS, as their rows say (collective_algorithms.h): the
// alternatives a cluster without NVLink SHARP has.
std::string other_all_reduces() {
  std::string names;
  for (const CollectiveAlgorithm& row : collective_algorithms())
    if (row.all_reduce && row.id != AllReduceAlgorithm::kNvls)
      names += (names.empty() ? "" : ", ") + std::string(row.name);
  return names;
}

}  // namespace

std::string nvls_unsupported_reason(const ClusterSpec& c) {
  if (nvls_supported(c)) return "";
  const int cc = c.gpu.compute_capability;
  return std::string(
             "nvls needs NVLink SHARP: cluster.intra_node.kind nvswitch, at least 3 GPUs "
             "per node (NCCL enables NVLS above 2) and a GPU of compute capability 9.0 or later "
             "(H100, H200, H800, B200, GB200); this cluster has ") +
         enum_name(c.intra_node.kind) + ", " + std::to_string(c.gpus_per_node) +
         " GPU(s) per node and compute capability " + std::to_string(cc / 10) + "." +
         std::to_string(cc % 10) + "; allowed: " + other_all_reduces();
}

NcclChoice nccl_choose(const NcclSetting& s, const std::vector<NcclCandidate>& candidates,
                       NcclProtocol forced, double bytes, CollectiveOp op) {
  NcclChoice best;
  bool found = false;
  for (const NcclCandidate& c : candidates) {
    for (NcclProtocol p : {NcclProtocol::kLL, NcclProtocol::kLL128, NcclProtocol::kSimple}) {
      if (forced != NcclProtocol::kAuto ? p != forced : !nccl_protocol_enabled(s, p)) continue;
      if (!nccl_algorithm_runs(c.algorithm, p)) continue;
      NcclChoice option;
      option.algorithm = c.algorithm;
      option.protocol = p;
      option.latency = nccl_latency(s, c.algorithm, p, bytes, op);
      option.algbw = nccl_algbw(s, c.algorithm, p, bytes, c.links_algbw, op);
      if (!found || option.time(bytes) < best.time(bytes)) {
        best = option;
        found = true;
      }
    }
  }
  if (!found)  // the scenario checks refuse NVLS with a forced LL or LL128 before this
    throw std::invalid_argument("nccl_choose: no candidate runs the forced protocol");
  return best;
}

const char* nccl_protocol_name(NcclProtocol p) {
  switch (p) {
    case NcclProtocol::kLL:
      return "LL";
    case NcclProtocol::kLL128:
      return "LL128";
    case NcclProtocol::kSimple:
      return "Simple";
    case NcclProtocol::kAuto:
      return "auto";
  }
  return "?";
}

}  // namespace ddpsim
