// NCCL's own cost model for all-reduce, reduce-scatter and all-gather, as a pure function:
// NVIDIA/nccl v2.20.3, src/graph/tuning.cc (ncclTopoTuneModel, ncclTopoGetAlgoTime). A call of S
// bytes with algorithm a (ring, tree) and protocol p (LL, LL128, Simple) takes
//   latency(a, p) + S / algbw(a, p)
// where, in microseconds,
//   ring: baseLat[a][p] + (2(P-1) - nInter) * intraLat + nInter * interLat,  nInter = 2N (N > 1)
//         intraLat = max(hwLat[intra][a][p], netOverhead) when N > 1 (netOverhead: 1 us Intel,
//         2 us AMD, x3 for Simple); the latency x1.4 (x1.9 before Ampere) for Simple on several
//         nodes once S / (channels * P) >= 64 B ("plateau effect of ring")
//   tree: baseLat[a][p] + 2 ((P/N - 1) * intraLat + floor(log2 N) * interLat)
// with hwLat per hardware class (NVLink, PCI, network) and interLat = hwLat[net][a][p], every
// table value times NcclSetting::latency_scale (1 = v2.20.3's table). Each hop
// also pays the cluster's own link latency (intra_hop, net_hop: the `latency` keys and the
// transport's per-message cost), which plays the role of NCCL's graph->latencyInter.
//
// Bandwidth: what the links give the Simple protocol (links_algbw, measured by the caller on
// its flows) is the bus bandwidth NCCL calls nChannels * bw; the protocols derate it as NCCL does:
// ring LL min(llMaxBw, busBw/4), ring LL128 x0.92 (x0.7 with one GPU per node), tree x0.92 then
// LL /3.8 (capped by llMaxBw) or LL128 x7/9 (one node) / x120/128, and the tree's per-size
// correction factor. NCCL's per-channel caps (perChMax*) are left out: ddpsim's channels are NIC
// rails, not NCCL's SM channels, and its links already bound the rate.
// Reduce-scatter and all-gather (op): NCCL runs them on the ring alone (tuning.cc skips every
// other algorithm for them: `if (coll != ncclFuncAllReduce && a != NCCL_ALGO_RING) continue`),
// with nsteps = P-1 and nInterSteps = N-1 in place of 2(P-1) and 2N, the bus-to-algorithm ratio
// P/nsteps = P/(P-1), LL's bandwidth /3 instead of /4 on one node, and no plateau factor (an
// all-reduce correction in ncclTopoGetAlgoTime). `bytes` is the whole buffer S, as NCCL's
// nBytes (src/include/info.h, ncclInfoSetDerived: "nBytes *= nRanks; // count is per rank").
// NVLS (NVLink SHARP: the NVSwitch reduces and multicasts; one node) and NVLSTree (NVLS inside
// each node, a tree across nodes) run Simple only: latency hwLat[NVLink][NVLS] = 23 us (base 0),
// NVLSTree 23 us + 2 floor(log2 N) (14 us + net hop), and algbw = 5/6 of what the links give
// ("ratio *= 5.0/6.0"). On one node every port carries S(1+1/g) each way (tree_allreduce.cpp)
// and NCCL moves it at 5/6 of the port's rate: with the 370 GB/s NCCL reaches per H100 port
// (sjeaugey, NVIDIA/nccl-tests#212) 370 x 8/9 x 5/6 = 274 GB/s on 8 GPUs, NCCL's own "algbw
// ~275GB/s" (busbw ~480), and 257, 264, 270, 274 GB/s on 5 to 8 GPUs against 258, 265, 270,
// 273 measured (NVIDIA/nccl#1455). Across nodes the links are the tree's S/C per NIC. NCCL
// enables NVLS only with more than 2 GPUs in the node (ncclNvlsInit: `gpuCount <= 2`).
// NCCL chooses the (algorithm, protocol) of least predicted time; LL128 only where NCCL enables
// it by default (NVLink inside the node, GPUDirect RDMA across nodes, compute capability 7.0,
// 8.0 or 9.0).
// PAT (reduce-scatter and all-gather only, Simple only, NCCL 2.23 on; v2.20.3 has no PAT, so its
// row is v2.23.4's, the first release with it): NCCL enables it only where every rank is its own
// node (ncclPatEnable: nNodes == nRanks). Latency 8 + floor(log2 N) * interLat / 3.5 + 2.8 P us,
// interLat = hwLat[network][tree][Simple] (14 us in v2.23.4; "with ppn=1 latencies are fully
// exposed, use the Tree network latency") plus the network hop; bandwidth 0.85 of the ring's bus
// bandwidth, with no bus-to-algorithm conversion (tuning.cc: `if (a == NCCL_ALGO_PAT) busBw *=
// .85`). Plain functions, no SimGrid.
#pragma once

#include <string>
#include <vector>

#include "sim/measurements/calibration_profile.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

enum class NcclAlgorithm { kTree = 0, kRing = 1, kNvls = 2, kNvlsTree = 3, kPat = 4 };
enum class NcclHardware { kNvLink = 0, kPci = 1, kNet = 2 };  // NCCL_HW_*

// What ncclTopoTuneModel reads from the topology.
struct NcclSetting {
  int ranks = 1;
  int nodes = 1;
  NcclHardware intra = NcclHardware::kNvLink;  // what joins the GPUs of a node
  int compute_capability = 80;                 // 70 Volta, 80 Ampere, 90 Hopper, ...
  CpuVendor cpu = CpuVendor::kIntel;
  bool ll128 = false;    // enabled by default on this topology
  int channels = 1;      // for the ring's plateau threshold
  double intra_hop = 0;  // seconds added to every intra-node hop
  double net_hop = 0;    // seconds added to every network hop
  // Multiplies the table's latencies (baseLat, hwLat, the proxy's netOverhead, NVLS's): what
  // other NCCL releases' tables and measured small-message times span (sync.nccl_latency,
  // docs/assumptions.md). NCCL's choice of algorithm and protocol follows the scaled table, as a
  // release with that table would choose. intra_hop and net_hop are the cluster's, not scaled.
  double latency_scale = 1;
};

// The setting of a cluster: ranks and nodes, NVLink or PCI inside a node, LL128 as NCCL enables
// it, the link latencies (intra_node.latency; nic.latency + nic.message_cost) as extra per hop.
NcclSetting nccl_setting(const ClusterSpec& cluster, int channels);

// Seconds NCCL charges per call of `bytes` with this algorithm and protocol (op: all-reduce,
// reduce-scatter or all-gather; the tree only for all-reduce).
double nccl_latency(const NcclSetting& s, NcclAlgorithm a, NcclProtocol p, double bytes,
                    CollectiveOp op = CollectiveOp::kAllReduce);

// Algorithm bandwidth (bytes/s) of protocol p, given the algorithm bandwidth links_algbw that
// the links give the Simple protocol; never above links_algbw. For PAT, links_algbw is the ring's
// on the same links (NCCL rates PAT from the ring's bus bandwidth).
double nccl_algbw(const NcclSetting& s, NcclAlgorithm a, NcclProtocol p, double bytes,
                  double links_algbw, CollectiveOp op = CollectiveOp::kAllReduce);

bool nccl_protocol_enabled(const NcclSetting& s, NcclProtocol p);
// Whether algorithm a runs protocol p at all (NVLS, NVLSTree and PAT: Simple only).
bool nccl_algorithm_runs(NcclAlgorithm a, NcclProtocol p);

// `sync.algorithm: auto` may run PAT for this scenario's reduce-scatters and all-gathers over the
// world: a sharded job priced by NCCL's tuning (latency_model nccl, flow mode, no alpha-beta
// table, a protocol PAT runs) on several nodes of one GPU each (ncclPatEnable). Elsewhere auto's
// sharded calls are NCCL's ring, as NCCL's tuner leaves them.
bool auto_may_run_pat(const Scenario& s);

// NVLink SHARP needs third-generation NVSwitch: an NVSwitch node of Hopper or later GPUs
// (compute capability >= 9.0) with more than two GPUs (NCCL's nvlsSupport; ncclNvlsInit returns
// without NVLS for gpuCount <= 2 in v2.18 to v2.21).
bool nvls_supported(const ClusterSpec& cluster);
// "" where nvls_supported; otherwise what NVLS needs, what this cluster has and the algorithms
// allowed instead, for the one message the scenario and the command line give ("nvls needs
// NVLink SHARP: ...; allowed: ring, tree, ...").
std::string nvls_unsupported_reason(const ClusterSpec& cluster);

struct NcclChoice {
  NcclAlgorithm algorithm = NcclAlgorithm::kRing;
  NcclProtocol protocol = NcclProtocol::kSimple;
  double latency = 0;  // seconds
  double algbw = 0;    // bytes/s
  double time(double bytes) const { return latency + bytes / algbw; }
};

struct NcclCandidate {
  NcclAlgorithm algorithm;
  double links_algbw;  // bytes/s the links give this algorithm's Simple protocol
};

// NCCL's pick for `bytes`: the candidate algorithm and enabled protocol of least predicted
// time (ties go to the earlier candidate, then to the protocol order LL, LL128, Simple).
// `forced` other than kAuto restricts the protocols to that one (NCCL_PROTO), enabled or not.
NcclChoice nccl_choose(const NcclSetting& s, const std::vector<NcclCandidate>& candidates,
                       NcclProtocol forced, double bytes,
                       CollectiveOp op = CollectiveOp::kAllReduce);

const char* nccl_protocol_name(NcclProtocol p);  // "LL", "LL128", "Simple"

}  // namespace ddpsim
