// `auto`: picks ring or tree per call the way NCCL's tuner does, by predicting each algorithm's
// time from the topology (latency + size / bandwidth of its bottleneck) and taking the faster.
// Inside one node it always picks ring (NCCL's intra-node tree is a chain with no latency gain);
// across nodes the tree's latency grows with log2(nodes) instead of p, so it wins for small
// messages and the ring's smaller bandwidth term wins for large ones. The choice depends only on
// the size, so every rank picks the same algorithm; algorithm_for() reports it per bucket.
#include <algorithm>
#include <string>

#include "sim/collectives/allreduce.h"
#include "sim/cost/collective_formulas.h"

namespace ddpsim {
namespace {

class AutoAllReduce : public AllReduce {
 public:
  AutoAllReduce(Transport* transport, CollectiveMode mode, int channels)
      : spec_(transport->platform().spec),
        channels_(ring_channel_count(spec_, channels)),
        ring_(make_ring_allreduce(transport, mode, channels)),
        tree_(make_tree_allreduce(transport, channels)) {}

  void run(int rank, uint64_t tag, double bytes) override {
    (picks_tree(bytes) ? tree_ : ring_)->run(rank, tag, bytes);
  }

  std::string name() const override { return "auto"; }
  std::string algorithm_for(double bytes) const override {
    return std::string(picks_tree(bytes) ? "tree" : "ring") + " (auto)";
  }

 private:
  bool picks_tree(double bytes) const {
    return spec_.nodes > 1 && predict_tree(bytes) < predict_ring(bytes);
  }

  // Bandwidth of one channel across nodes: the slower of its GPU's PCIe link and its NIC.
  double rail_bandwidth() const { return std::min(spec_.pcie_bandwidth, spec_.nic.bandwidth); }
  double intra_bandwidth() const {
    return spec_.intra_node.kind == IntraNodeKind::kPcie ? spec_.pcie_bandwidth
                                                         : spec_.intra_node.bandwidth;
  }
  double alpha_max() const {
    return std::max(spec_.nic.latency, spec_.gpus_per_node > 1 ? spec_.intra_node.latency : 0.0);
  }

  // The ring of ring_allreduce.cpp: C rings, each carrying V/C where V = 2(p-1)/p S; an
  // intra-node edge carries every ring not leaving the node there.
  double predict_ring(double bytes) const {
    const int g = spec_.gpus_per_node, p = spec_.total_gpus(), c = channels_;
    const double v = 2.0 * (p - 1) / p * bytes;
    double t = v / c / rail_bandwidth();
    if (g > 1) t = std::max(t, (c < g ? c : c - 1) * v / c / intra_bandwidth());
    return t + 2.0 * (p - 1) * alpha_max();
  }

  // The tree of tree_allreduce.cpp: the node trees' flows of S/(2C) on the heads' rails and the
  // chains' flows of S inside nodes run at once; the latencies of both add up.
  double predict_tree(double bytes) const {
    const int g = spec_.gpus_per_node, n = spec_.nodes;
    const double intra = intra_bandwidth();
    const double bandwidth_term =
        std::max(double_binary_tree_time(n, bytes / channels_, rail_bandwidth(), 0),
                 chain_allreduce_time(g, bytes, intra, 0));
    return bandwidth_term + double_binary_tree_time(n, 0, rail_bandwidth(), spec_.nic.latency) +
           chain_allreduce_time(g, 0, intra, spec_.intra_node.latency);
  }

  ClusterSpec spec_;
  int channels_;
  std::unique_ptr<AllReduce> ring_;
  std::unique_ptr<AllReduce> tree_;
};

}  // namespace

std::unique_ptr<AllReduce> make_auto_allreduce(Transport* transport, CollectiveMode mode,
                                               int channels) {
  return std::make_unique<AutoAllReduce>(transport, mode, channels);
}

}  // namespace ddpsim
