// Double binary tree all-reduce, as NCCL's "tree" algorithm lays it out.
//
// Structure, per channel c of C (ring_channel_count: one per NIC on several nodes), each carrying
// S/C: inside every node a chain starting at the channel's head GPU h_c = c*g/C (h_c, h_c+1, ...,
// h_c-1 mod g); across nodes NCCL's double binary tree over the nodes' head GPUs
// (nccl_double_binary_tree), each of the two trees carrying half of the channel's data. Reduce
// flows go up (chain towards the head, tree towards the root) and broadcast flows come back down;
// NCCL pipelines both over small chunks, so in flow mode every edge of a call is one flow at once:
//   chain edge, each way: S/C;   tree edge, each way: S/(2C)
// (the two trees' flows are never merged, even between the same two GPUs, so every NIC carries
// flows of one size and max-min sharing reaches the closed form; the channels' chain flows
// between two GPUs are, and a GPU's two chain flows then differ by at most S/C, which leaves the
// busiest link's time unchanged). Every rank waits for the call's last flow, then sleeps the
// pipeline's latency: with the alpha cost model 2 * ((g-1) * alpha_intra + depth * alpha_nic),
// depth being the deeper of the two node trees (ceil(log2 nodes)); with the NCCL model NCCL's
// tree latency for the protocol it picks, after waiting out the protocol's bandwidth ceiling
// (call_cost.h).
//
//
// NVLS (nvls = true; NCCL's NVLS on one node, NVLSTree across nodes): the node's NVSwitch reduces
// and multicasts, so no chain: in the reduce-scatter each GPU's port carries its whole buffer up
// (S) and its reduced shard down (S/g), in the all-gather its shard up (S/g) and every shard down
// (S). The switch is a crossbar of per-GPU ports, so only the bytes per port matter: flows of
// S (1+1/g) / (g-1) from every GPU to every other GPU of the node load each port exactly so. The
// network part is the tree's above (each channel's head carries the node's share over its NIC).
// One node: S (1+1/g) / B_intra + latency; NCCL's cost model then charges NVLS's 23 us and its
// 5/6 of the ports' rate (nccl_tuning.h); alpha: 2 alpha_intra + 2 depth alpha_nic.
// Resulting closed forms on uncontended links (collective_formulas.h): one node, a chain:
// 2 S/B_intra + 2 (g-1) alpha (S/B for g = 2); one GPU per node, n >= 4 nodes: 2 S/B + 2 ceil(log2
// n) alpha. The chunked mode is not modelled for trees (flow mode always).
#include <algorithm>
#include <map>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/call_cost.h"
#include "sim/collectives/collective_sync.h"
#include "sim/collectives/flow_bottleneck.h"
#include "sim/cost/collective_formulas.h"

namespace ddpsim {
namespace {

struct Flow {
  int peer = 0;
  double share = 0;  // fraction of the call's bytes
  std::string mailbox;
};

class TreeAllReduce : public AllReduce {
 public:
  TreeAllReduce(Transport* transport, int channels, CollectiveCost cost, bool nvls)
      : transport_(transport),
        nvls_(nvls),
        pf_(transport->platform()),
        p_(static_cast<int>(pf_.gpus.size())),
        start_(p_),
        end_(p_),
        out_(p_),
        in_(p_) {
    static int instances = 0;
    const std::string prefix = "tree" + std::to_string(instances++) + ":";
    const int g = pf_.spec.gpus_per_node, nodes = pf_.spec.nodes;
    const int rings = ring_channel_count(pf_.spec, channels);
    const auto trees = nccl_double_binary_tree(nodes);
    double alpha_intra = 0, alpha_nic = 0;
    int flows = 0;
    auto add = [&](int from, int to, double share) {
      const std::string box = prefix + std::to_string(flows++);
      out_[from].push_back(Flow{to, share, box});
      in_[to].push_back(Flow{from, share, box});
    };
    // Chains: every channel's chain edges point the same way (towards local index - 1 for the
    // reduce, + 1 for the broadcast), so the channels' flows on one GPU pair merge into one.
    std::map<std::pair<int, int>, double> chain;
    if (nvls && g > 1) {
      for (int node = 0; node < nodes; ++node)
        for (int l = 0; l < g; ++l)
          for (int m = 0; m < g; ++m) {
            if (l == m) continue;
            chain[{node * g + l, node * g + m}] = (1 + 1.0 / g) / (g - 1);
            alpha_intra = std::max(alpha_intra, latency(node * g + l, node * g + m));
          }
    }
    for (int c = 0; c < rings; ++c) {
      const int head = c * g / rings;
      for (int node = 0; node < nodes; ++node) {
        for (int i = 1; i < g && !nvls; ++i) {
          const int below = node * g + (head + i) % g, above = node * g + (head + i - 1) % g;
          chain[{below, above}] += 1.0 / rings;  // reduce
          chain[{above, below}] += 1.0 / rings;  // broadcast
          alpha_intra = std::max(alpha_intra, latency(below, above));
        }
        for (const auto& tree : trees) {
          const int parent = tree[node].parent;
          if (parent < 0) continue;
          const int child = node * g + head, up = parent * g + head;
          add(child, up, 0.5 / rings);
          add(up, child, 0.5 / rings);
          alpha_nic = std::max(alpha_nic, latency(child, up));
        }
      }
    }
    for (const auto& [ends, share] : chain) add(ends.first, ends.second, share);
    // The latency follows the whole cluster's trees (the symmetric scope simulates a slice whose
    // busiest NIC carries as many tree flows as the cluster's, sim/cost/symmetry.cpp).
    const int logical_nodes = pf_.logical_nodes;
    const auto logical_trees =
        logical_nodes == nodes ? trees : nccl_double_binary_tree(logical_nodes);
    const int depth = logical_nodes > 1
                          ? std::max(tree_depth(logical_trees[0]), tree_depth(logical_trees[1]))
                          : 0;
    std::vector<FlowShare> shares;
    for (int r = 0; r < p_; ++r)
      for (const Flow& f : out_[r]) shares.push_back({pf_.gpus[r], pf_.gpus[f.peer], f.share});
    const NcclAlgorithm algorithm = !nvls               ? NcclAlgorithm::kTree
                                    : logical_nodes > 1 ? NcclAlgorithm::kNvlsTree
                                                        : NcclAlgorithm::kNvls;
    const int intra_hops = nvls ? (g > 1 ? 1 : 0) : g - 1;
    cost_ = std::make_unique<CallCost>(pf_.logical_spec(), algorithm, rings, cost,
                                       seconds_per_byte(pf_, shares),
                                       2.0 * (intra_hops * alpha_intra + depth * alpha_nic));
  }

  void run(int rank, uint64_t tag, double bytes) override {
    if (p_ == 1 || bytes <= 0) return;
    start_.arrive_and_wait(tag);
    const double start = simgrid::s4u::Engine::get_clock();
    std::vector<simgrid::s4u::CommPtr> comms;
    comms.reserve(in_[rank].size() + out_[rank].size());
    for (const Flow& f : in_[rank]) comms.push_back(transport_->irecv(f.mailbox));
    for (const Flow& f : out_[rank])
      comms.push_back(transport_->isend(pf_.gpus[rank], pf_.gpus[f.peer], f.mailbox,
                                        f.share * bytes, /*add_latency=*/false));
    simgrid::s4u::Comm::wait_all(comms);
    end_.arrive_and_wait(tag);
    const double elapsed = simgrid::s4u::Engine::get_clock() - start;
    const double rest = cost_->after_flows(bytes, elapsed);
    if (rest > 0) simgrid::s4u::this_actor::sleep_for(rest);
  }

  std::string name() const override { return nvls_ ? "nvls" : "tree"; }
  std::string algorithm_for(double bytes) const override {
    const bool across = pf_.logical_nodes > 1;
    return cost_->label(!nvls_ ? "tree" : across ? "nvls-tree" : "nvls", bytes);
  }
  double predicted_time(double bytes) const override {
    return p_ > 1 && bytes > 0 ? cost_->predicted(bytes) : 0;
  }
  double links_algbw() const override { return p_ > 1 ? cost_->links_algbw() : 0; }

 private:
  double latency(int a, int b) const { return message_latency(pf_, pf_.gpus[a], pf_.gpus[b]); }

  Transport* transport_;
  bool nvls_;
  const ClusterPlatform& pf_;
  int p_;
  std::unique_ptr<CallCost> cost_;
  CallBarrier start_;
  CallBarrier end_;
  std::vector<std::vector<Flow>> out_;
  std::vector<std::vector<Flow>> in_;
};

}  // namespace

std::unique_ptr<AllReduce> make_tree_allreduce(Transport* transport, int channels,
                                               CollectiveCost cost) {
  return std::make_unique<TreeAllReduce>(transport, channels, cost, /*nvls=*/false);
}

std::unique_ptr<AllReduce> make_nvls_allreduce(Transport* transport, int channels,
                                               CollectiveCost cost) {
  return std::make_unique<TreeAllReduce>(transport, channels, cost, /*nvls=*/true);
}

}  // namespace ddpsim
