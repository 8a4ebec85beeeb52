// Node and rail group collectives (CollectiveGroup in allreduce.h): a ring all-reduce,
// reduce-scatter or all-gather inside every node at once (kNode: the g GPUs of a node, local
// order) or along every rail at once (kRail: the n GPUs sharing a local index, node order, each
// over its own GPU's NIC; GPUs that share a NIC share its bandwidth), on GroupRings.
//
// Flow mode: each member sends passes * (m-1)/m * S to its successor as one flow (passes = 2 for
// all-reduce, 1 otherwise; m = the group's size, the whole cluster's nodes for a rail under the
// symmetric scope), the group waits for its last flow, then sleeps passes * (m-1) * alpha
// (alpha: the largest message latency of the group's edges) or, with the NCCL cost model, NCCL's
// ring latency and bandwidth ceiling for a communicator of the group's shape (1 node x g GPUs
// for kNode, n nodes x 1 GPU for kRail). Closed forms on uncontended links, B_rail =
// min(B_pcie, B_nic * nics / g):
//   node:  passes * ((g-1)/g * S/B_intra + (g-1) alpha_intra)
//   rail:  passes * ((n-1)/n * S/B_rail + (n-1) alpha_nic)
// Chunked mode: passes * (m-1) phases of S/m each, alpha after each (m the simulated members).
// Every algorithm runs as this ring: inside one node NCCL's tree is a chain and a rail is the
// ring FSDP's HYBRID_SHARD all-reduce runs between replicas.
#include <algorithm>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/call_cost.h"
#include "sim/collectives/flow_bottleneck.h"
#include "sim/collectives/group_ring.h"

namespace ddpsim {
namespace {

std::vector<std::vector<int>> groups_of(const ClusterPlatform& pf, CollectiveGroup group) {
  return group == CollectiveGroup::kNode ? GroupRings::nodes(pf) : GroupRings::rails(pf);
}

class GroupCollective : public AllReduce {
 public:
  GroupCollective(Transport* transport, CollectiveOp op, CollectiveGroup group, CollectiveMode mode,
                  CollectiveCost cost)
      : pf_(transport->platform()),
        mode_(mode),
        passes_(op == CollectiveOp::kAllReduce ? 2 : 1),
        members_(group == CollectiveGroup::kNode ? pf_.spec.gpus_per_node : pf_.logical_nodes),
        rings_(transport, groups_of(pf_, group)) {
    // The communicator NCCL would build for one group, for its latency and protocol ceilings.
    ClusterSpec shape = pf_.logical_spec();
    if (group == CollectiveGroup::kNode)
      shape.nodes = 1;
    else
      shape.gpus_per_node = 1;
    std::vector<FlowShare> flows;
    double alpha = 0;
    const double volume = members_ > 1 ? passes_ * (members_ - 1.0) / members_ : 0;
    for (const std::vector<int>& members : groups_of(pf_, group)) {
      const size_t m = members.size();
      if (m <= 1) continue;
      for (size_t i = 0; i < m; ++i)
        flows.push_back({pf_.gpus[members[i]], pf_.gpus[members[(i + 1) % m]], volume});
      alpha = std::max(alpha, rings_.alpha(members[0]));
    }
    cost_ = std::make_unique<CallCost>(shape, NcclAlgorithm::kRing, 1, cost,
                                       seconds_per_byte(pf_, flows),
                                       passes_ * (members_ - 1.0) * alpha, op);
  }

  void run(int rank, uint64_t tag, double bytes) override {
    if (members_ <= 1 || bytes <= 0) return;
    if (mode_ == CollectiveMode::kChunked) {
      const int m = rings_.group_size(rank);
      const int steps = passes_ * (m - 1);
      for (int step = 0; step < steps; ++step)
        rings_.phase(rank, tag * static_cast<uint64_t>(steps) + step, bytes / m, 1);
      return;
    }
    const double volume = passes_ * (members_ - 1.0) / members_ * bytes;
    if (!cost_->nccl()) {
      rings_.phase(rank, tag, volume, passes_ * (members_ - 1));
      return;
    }
    const double elapsed = rings_.phase(rank, tag, volume, 0);
    if (rings_.group_size(rank) > 1)
      simgrid::s4u::this_actor::sleep_for(cost_->after_flows(bytes, elapsed));
  }

  std::string name() const override { return "ring"; }
  std::string algorithm_for(double bytes) const override {
    return mode_ == CollectiveMode::kFlow ? cost_->label("ring", bytes) : "ring";
  }
  double predicted_time(double bytes) const override {
    return members_ > 1 && bytes > 0 ? cost_->predicted(bytes) : 0;
  }

 private:
  const ClusterPlatform& pf_;
  CollectiveMode mode_;
  int passes_;   // ring passes: 2 for all-reduce, else 1
  int members_;  // ranks of one group in the cluster the run stands for
  GroupRings rings_;
  std::unique_ptr<CallCost> cost_;
};

}  // namespace

std::unique_ptr<AllReduce> make_group_collective(Transport* transport, CollectiveOp op,
                                                 CollectiveGroup group, CollectiveMode mode,
                                                 CollectiveCost cost) {
  if (op == CollectiveOp::kBroadcast)
    throw std::invalid_argument("make_group_collective: broadcast is not modelled");
  if (group == CollectiveGroup::kWorld) return make_ring_collective(transport, op, mode, 0, cost);
  if (mode == CollectiveMode::kChunked) cost.model = LatencyModel::kAlpha;  // as the ring's
  return std::make_unique<GroupCollective>(transport, op, group, mode, cost);
}

}  // namespace ddpsim
