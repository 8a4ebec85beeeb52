// `auto`: picks ring or tree per call the way NCCL's tuner does, by predicting each algorithm's
// time on idle links (its flows' bottleneck plus its latency term, allreduce.h's
// predicted_time) and taking the faster. With the alpha cost model, inside one node it always
// picks ring (NCCL's intra-node tree is a chain with no latency gain); across nodes the tree's
// latency grows with log2(nodes) instead of p, so it wins for small messages and the ring's
// smaller bandwidth term wins for large ones. With the NCCL cost model the comparison is NCCL's
// own over both algorithms and every enabled protocol. The choice depends only on the size, so
// every rank picks the same algorithm; algorithm_for() reports it per bucket. On NVLink SHARP
// nodes (nvls_supported) under the NCCL cost model NVLS / NVLSTree is a third candidate, as in
// NCCL 2.17 and later, unless a forced protocol other than Simple rules it out.
#include <string>

#include "sim/collectives/allreduce.h"
#include "sim/cost/nccl_tuning.h"

namespace ddpsim {
namespace {

class AutoAllReduce : public AllReduce {
 public:
  AutoAllReduce(Transport* transport, CollectiveMode mode, int channels, CollectiveCost cost)
      : nodes_(transport->platform().logical_nodes),
        nccl_(cost.model == LatencyModel::kNccl),
        ring_(make_ring_allreduce(transport, mode, channels, cost)),
        tree_(make_tree_allreduce(transport, channels, cost)) {
    const bool simple =
        cost.protocol == NcclProtocol::kAuto || cost.protocol == NcclProtocol::kSimple;
    if (nccl_ && simple && nvls_supported(transport->platform().spec))
      nvls_ = make_nvls_allreduce(transport, channels, cost);
  }

  void run(int rank, uint64_t tag, double bytes) override { pick(bytes)->run(rank, tag, bytes); }

  std::string name() const override { return "auto"; }
  std::string algorithm_for(double bytes) const override {
    return pick(bytes)->algorithm_for(bytes) + " (auto)";
  }
  double predicted_time(double bytes) const override { return pick(bytes)->predicted_time(bytes); }

 private:
  AllReduce* pick(double bytes) const {
    AllReduce* best = ring_.get();
    if (!nccl_ && nodes_ == 1) return best;
    if (tree_->predicted_time(bytes) < best->predicted_time(bytes)) best = tree_.get();
    if (nvls_ && nvls_->predicted_time(bytes) < best->predicted_time(bytes)) best = nvls_.get();
    return best;
  }

  int nodes_;
  bool nccl_;
  std::unique_ptr<AllReduce> ring_;
  std::unique_ptr<AllReduce> tree_;
  std::unique_ptr<AllReduce> nvls_;  // null where NVLS is not a candidate
};

}  // namespace

std::unique_ptr<AllReduce> make_auto_allreduce(Transport* transport, CollectiveMode mode,
                                               int channels, CollectiveCost cost) {
  if (mode == CollectiveMode::kChunked) cost.model = LatencyModel::kAlpha;  // as the ring's
  return std::make_unique<AutoAllReduce>(transport, mode, channels, cost);
}

}  // namespace ddpsim
