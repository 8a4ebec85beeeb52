// Collectives (all-reduce, reduce-scatter, all-gather) as SimGrid actor code. Every rank's
// communication actor calls run() with the same tag and size, in the same order (like a NCCL
// stream); run() returns when this rank holds its result. A collective starts only when every
// rank of its group has joined it.
//
// `bytes` is always the FULL buffer S (nccl-tests' "size", NCCL's nBytes): all-reduce reduces S
// on every rank; reduce-scatter takes S from each rank and leaves S/p on each; all-gather takes
// S/p from each rank and leaves S on each (p: the ranks of the collective's group).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "sim/collectives/traffic.h"
#include "sim/cost/effective_scenario.h"  // ring_channel_count
#include "sim/measurements/calibration_profile.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

// Which ranks one collective spans. kWorld: every GPU. kNode: one collective per node among its
// g GPUs (every rank calls run(); each node proceeds on its own). kRail: one collective per local
// GPU index across the nodes (the n GPUs with the same local index, over that GPU's NIC), as
// FSDP's HYBRID_SHARD all-reduces its shards between replicas.
enum class CollectiveGroup { kWorld, kNode, kRail };

// The interface of every collective, named for the first one modelled (much code uses the name).
class AllReduce {
 public:
  virtual ~AllReduce() = default;
  // rank in [0, p); tag unique per collective call (e.g. iteration * 1000 + bucket).
  virtual void run(int rank, uint64_t tag, double bytes) = 0;
  virtual std::string name() const = 0;
  // What reduces a buffer of `bytes` (auto: the algorithm it picks; the NCCL cost model adds the
  // protocol, "ring/LL128"), for per-bucket reports.
  virtual std::string algorithm_for(double /*bytes*/) const { return name(); }
  // The call's time on otherwise idle links (what `auto` compares); 0 when not modelled.
  virtual double predicted_time(double /*bytes*/) const { return 0; }
  // The algorithm bandwidth (bytes/s) its flows reach on idle links; 0 when not modelled.
  virtual double links_algbw() const { return 0; }
};
using Collective = AllReduce;

// What a flow-mode ring or tree call costs beyond its flows. alpha: the message latencies of the
// algorithm's steps (2(p-1) alpha for the ring). nccl: NCCL's tuning model (nccl_tuning.h):
// its latency for the protocol NCCL picks by size (or `protocol`), and the protocol's bandwidth
// ceiling: a call lasts max(its flows, bytes / algbw(protocol)) + latency.
struct CollectiveCost {
  LatencyModel model = LatencyModel::kAlpha;
  NcclProtocol protocol = NcclProtocol::kAuto;
  double nccl_latency = 1;  // sync.nccl_latency: NcclSetting::latency_scale under model nccl
};

// ring: flow mode = one flow per ring edge per call (edges shared by channels merged), plus the
// analytic latency 2(p-1)*alpha; chunked mode = 2(p-1) steps of S/(p*C) bytes per ring, alpha per
// step. alpha = the largest message_latency() of any ring edge. p = 1 or bytes = 0: returns at
// once. Each rank's actor must run on platform.gpus[rank]; ring_allreduce.cpp describes the rings.
// channels: parallel rings (NCCL channels), see ring_channel_count().
// The chunked mode always charges alpha per step (it is the alpha model's validation mode).
std::unique_ptr<AllReduce> make_ring_allreduce(Transport* transport, CollectiveMode mode,
                                               int channels, CollectiveCost cost = {});
// The same rings for reduce-scatter and all-gather (op; kAllReduce is make_ring_allreduce): one
// ring pass, so flow mode carries (p-1)/p * S per rank (split over the rings as above) plus
// (p-1) alpha, or NCCL's ring latency for that collective; chunked mode p-1 steps of S/(p*C).
std::unique_ptr<AllReduce> make_ring_collective(Transport* transport, CollectiveOp op,
                                                CollectiveMode mode, int channels,
                                                CollectiveCost cost = {});
// auto's reduce-scatter and all-gather where it may run PAT (auto_may_run_pat): NCCL's pick of
// ring or PAT per call size (auto_collective.cpp).
std::unique_ptr<AllReduce> make_auto_collective(Transport* transport, CollectiveOp op,
                                                CollectiveMode mode, int channels,
                                                CollectiveCost cost = {});

// Further algorithms; each file's header comment states its flow structure and closed form
// (sim/cost/collective_formulas.h). Flow mode only: `mode` matters to the ring alone.
// tree: NCCL's double binary tree across nodes, a chain inside each node, `channels` as for ring.
std::unique_ptr<AllReduce> make_tree_allreduce(Transport* transport, int channels,
                                               CollectiveCost cost = {});
// nvls: NCCL's NVLS (one node) / NVLSTree (several): the NVSwitch reduces in the switch, the
// tree's flows across nodes (tree_allreduce.cpp). Needs nvls_supported(cluster).
std::unique_ptr<AllReduce> make_nvls_allreduce(Transport* transport, int channels,
                                               CollectiveCost cost = {});
// halving-doubling: Rabenseifner's recursive halving reduce-scatter + doubling all-gather.
std::unique_ptr<AllReduce> make_halving_doubling_allreduce(Transport* transport);
// Its halves alone: recursive halving reduce-scatter, recursive doubling all-gather
// (halving_doubling_reduce_scatter_time(); op kAllReduce: the all-reduce above).
std::unique_ptr<AllReduce> make_halving_doubling_collective(Transport* transport, CollectiveOp op);
// hierarchical: intra-node ring reduce-scatter, one inter-node ring per local GPU (rail),
// intra-node ring all-gather.
std::unique_ptr<AllReduce> make_hierarchical_allreduce(Transport* transport);
// reduce-scatter: intra-node ring reduce-scatter of S, then inter-node ring reduce-scatter of the
// S/g shard per rail; all-gather: the mirror (hierarchical_reduce_scatter_time()).
std::unique_ptr<AllReduce> make_hierarchical_collective(Transport* transport, CollectiveOp op);
// A ring collective inside every node (kNode) or along every rail (kRail) at once, in flow or
// chunked mode (group_collective.cpp); `bytes` is the group's full buffer. With the NCCL cost
// model, NCCL's ring latency for a communicator of the group's shape (1 node x g GPUs; n nodes x
// 1 GPU).
std::unique_ptr<AllReduce> make_group_collective(Transport* transport, CollectiveOp op,
                                                 CollectiveGroup group, CollectiveMode mode,
                                                 CollectiveCost cost = {});
// auto: ring or tree per call by predicted time (tree for small messages across nodes); with
// the NCCL cost model, NCCL's own choice over both algorithms and every enabled protocol.
std::unique_ptr<AllReduce> make_auto_allreduce(Transport* transport, CollectiveMode mode,
                                               int channels, CollectiveCost cost = {});
// Measured costs: sleeps the table's alpha + beta * S instead of simulating flows, still
// accounting the ring's bytes. Throws std::invalid_argument when the table has neither
// `algorithm` nor `auto` rows.
using AlphaBetaTable = std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>>;
std::unique_ptr<AllReduce> make_alpha_beta_allreduce(Transport* transport,
                                                     AllReduceAlgorithm algorithm,
                                                     AlphaBetaTable table);
// The same for reduce-scatter or all-gather from that collective's rows (bytes accounted as one
// ring pass, (p-1)/p * S per rank).
std::unique_ptr<AllReduce> make_alpha_beta_collective(Transport* transport, CollectiveOp op,
                                                      AllReduceAlgorithm algorithm,
                                                      AlphaBetaTable table);

}  // namespace ddpsim
