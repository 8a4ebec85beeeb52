// Hierarchical all-reduce: ring reduce-scatter inside each node (every GPU ends with a reduced
// S/g shard), one inter-node ring per local GPU index all-reducing that shard across nodes over
// the GPU's own NIC (one ring per rail when the node has several NICs; GPUs sharing a NIC share
// its bandwidth), then ring all-gather inside each node. Each phase is a GroupRings phase (one
// flow per ring edge, group-wide completion, analytic latency), so on uncontended links the call
// takes hierarchical_allreduce_time() of collective_formulas.h:
//   2 (g-1)/g S/B_intra + 2 (g-1) alpha_intra + 2 (n-1)/n (S/g) / B_rail + 2 (n-1) alpha_nic.
// A rank sends 2 (g-1)/g S + 2 (n-1)/n S/g per call. The chunked mode is not modelled here.
//
// Reduce-scatter (op): the intra-node ring reduce-scatter of S, then a ring reduce-scatter of the
// S/g shard along each rail, leaving S/(g n) = S/p per rank; all-gather: the mirror (rail ring
// all-gather up to S/g, then intra-node all-gather up to S). Either takes half the all-reduce's
// time and bytes (hierarchical_reduce_scatter_time(),
// hierarchical_reduce_scatter_volume_per_rank()).
#include <stdexcept>
#include <string>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/collective_sync.h"
#include "sim/collectives/group_ring.h"

namespace ddpsim {
namespace {

class HierarchicalAllReduce : public AllReduce {
 public:
  HierarchicalAllReduce(Transport* transport, CollectiveOp op)
      : op_(op),
        pf_(transport->platform()),
        p_(static_cast<int>(pf_.gpus.size())),
        node_rings_(transport, GroupRings::nodes(pf_)),
        rail_rings_(transport, GroupRings::rails(pf_)),
        start_(p_) {}

  void run(int rank, uint64_t tag, double bytes) override {
    if (p_ == 1 || bytes <= 0) return;
    start_.arrive_and_wait(tag);
    // n: the whole cluster's nodes (the symmetric scope simulates a slice of the rails).
    const int g = pf_.spec.gpus_per_node, n = pf_.logical_nodes;
    const double intra = (g - 1.0) / g * bytes;
    const double rail = (n - 1.0) / n * bytes / g;
    switch (op_) {
      case CollectiveOp::kReduceScatter:
        node_rings_.phase(rank, 3 * tag, intra, g - 1);
        rail_rings_.phase(rank, 3 * tag + 1, rail, n - 1);
        break;
      case CollectiveOp::kAllGather:
        rail_rings_.phase(rank, 3 * tag + 1, rail, n - 1);
        node_rings_.phase(rank, 3 * tag + 2, intra, g - 1);
        break;
      default:
        node_rings_.phase(rank, 3 * tag, intra, g - 1);
        rail_rings_.phase(rank, 3 * tag + 1, 2 * rail, 2 * (n - 1));
        node_rings_.phase(rank, 3 * tag + 2, intra, g - 1);
    }
  }

  std::string name() const override { return "hierarchical"; }

 private:
  CollectiveOp op_;
  const ClusterPlatform& pf_;
  int p_;
  GroupRings node_rings_;
  GroupRings rail_rings_;
  CallBarrier start_;
};

}  // namespace

std::unique_ptr<AllReduce> make_hierarchical_allreduce(Transport* transport) {
  return make_hierarchical_collective(transport, CollectiveOp::kAllReduce);
}

std::unique_ptr<AllReduce> make_hierarchical_collective(Transport* transport, CollectiveOp op) {
  if (op == CollectiveOp::kBroadcast)
    throw std::invalid_argument("make_hierarchical_collective: broadcast is not modelled");
  return std::make_unique<HierarchicalAllReduce>(transport, op);
}

}  // namespace ddpsim
