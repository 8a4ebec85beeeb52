// `auto`: picks ring or tree per call the way NCCL's tuner does, by predicting each algorithm's
// time on idle links (its flows' bottleneck plus its latency term, allreduce.h's
// predicted_time) and taking the faster. With the alpha cost model, inside one node it always
// picks ring (NCCL's intra-node tree is a chain with no latency gain); across nodes the tree's
// latency grows with log2(nodes) instead of p, so it wins for small messages and the ring's
// smaller bandwidth term wins for large ones. With the NCCL cost model the comparison is NCCL's
// own over both algorithms and every enabled protocol. The choice depends only on the size, so
// every rank picks the same algorithm; algorithm_for() reports it per bucket.
#include <string>

#include "sim/collectives/allreduce.h"

namespace ddpsim {
namespace {

class AutoAllReduce : public AllReduce {
 public:
  AutoAllReduce(Transport* transport, CollectiveMode mode, int channels, CollectiveCost cost)
      : nodes_(transport->platform().logical_nodes),
        nccl_(cost.model == LatencyModel::kNccl),
        ring_(make_ring_allreduce(transport, mode, channels, cost)),
        tree_(make_tree_allreduce(transport, channels, cost)) {}

  void run(int rank, uint64_t tag, double bytes) override {
    (picks_tree(bytes) ? tree_ : ring_)->run(rank, tag, bytes);
  }

  std::string name() const override { return "auto"; }
  std::string algorithm_for(double bytes) const override {
    return (picks_tree(bytes) ? tree_ : ring_)->algorithm_for(bytes) + " (auto)";
  }
  double predicted_time(double bytes) const override {
    return (picks_tree(bytes) ? tree_ : ring_)->predicted_time(bytes);
  }

 private:
  bool picks_tree(double bytes) const {
    if (!nccl_ && nodes_ == 1) return false;
    return tree_->predicted_time(bytes) < ring_->predicted_time(bytes);
  }

  int nodes_;
  bool nccl_;
  std::unique_ptr<AllReduce> ring_;
  std::unique_ptr<AllReduce> tree_;
};

}  // namespace

std::unique_ptr<AllReduce> make_auto_allreduce(Transport* transport, CollectiveMode mode,
                                               int channels, CollectiveCost cost) {
  if (mode == CollectiveMode::kChunked) cost.model = LatencyModel::kAlpha;  // as the ring's
  return std::make_unique<AutoAllReduce>(transport, mode, channels, cost);
}

}  // namespace ddpsim
