// Hierarchical all-reduce: ring reduce-scatter inside each node (every GPU ends with a reduced
// S/g shard), one inter-node ring per local GPU index all-reducing that shard across nodes over
// the GPU's own NIC (one ring per rail when the node has several NICs; GPUs sharing a NIC share
// its bandwidth), then ring all-gather inside each node. Each phase is a GroupRings phase (one
// flow per ring edge, group-wide completion, analytic latency), so on uncontended links the call
// takes hierarchical_allreduce_time() of collective_formulas.h:
//   2 (g-1)/g S/B_intra + 2 (g-1) alpha_intra + 2 (n-1)/n (S/g) / B_rail + 2 (n-1) alpha_nic.
// A rank sends 2 (g-1)/g S + 2 (n-1)/n S/g per call. The chunked mode is not modelled here.
#include <string>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/collective_sync.h"
#include "sim/collectives/group_ring.h"

namespace ddpsim {
namespace {

class HierarchicalAllReduce : public AllReduce {
 public:
  explicit HierarchicalAllReduce(Transport* transport)
      : pf_(transport->platform()),
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
    node_rings_.phase(rank, 3 * tag, intra, g - 1);
    rail_rings_.phase(rank, 3 * tag + 1, 2.0 * (n - 1) / n * bytes / g, 2 * (n - 1));
    node_rings_.phase(rank, 3 * tag + 2, intra, g - 1);
  }

  std::string name() const override { return "hierarchical"; }

 private:
  const ClusterPlatform& pf_;
  int p_;
  GroupRings node_rings_;
  GroupRings rail_rings_;
  CallBarrier start_;
};

}  // namespace

std::unique_ptr<AllReduce> make_hierarchical_allreduce(Transport* transport) {
  return std::make_unique<HierarchicalAllReduce>(transport);
}

}  // namespace ddpsim
