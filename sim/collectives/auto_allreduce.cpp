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
// On more than two nodes NCCL's tuner rates the tree (and NVLSTree) by the network bandwidth per
// channel, the ring's (tuning.cc: `bw = nNodes <= 2 ? bwIntra : bwInter`): its bus bandwidth is
// never above the ring's, so for the choice the tree's flows are capped at the ring's bus
// bandwidth over 2, algbw_ring (p-1)/p, although the tree's flows may run faster on idle links
// (1.5 S/B per NIC on 3 nodes against the ring's 2(p-1)/p S/B). The call then runs on the picked
// algorithm's own flows. On one or two nodes the flows decide, as NCCL's intra-node rating does.
#include <algorithm>
#include <string>

#include "sim/collectives/allreduce.h"
#include "sim/cost/nccl_tuning.h"

namespace ddpsim {
namespace {

class AutoAllReduce : public AllReduce {
 public:
  AutoAllReduce(Transport* transport, CollectiveMode mode, int channels, CollectiveCost cost)
      : nodes_(transport->platform().logical_nodes),
        ranks_(transport->platform().logical_spec().total_gpus()),
        nccl_(cost.model == LatencyModel::kNccl),
        protocol_(cost.protocol),
        setting_(nccl_setting(transport->platform().logical_spec(),
                              ring_channel_count(transport->platform().spec, channels))),
        ring_(make_ring_allreduce(transport, mode, channels, cost)),
        tree_(make_tree_allreduce(transport, channels, cost)) {
    setting_.latency_scale = cost.nccl_latency;
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
    double best_time = ring_->predicted_time(bytes);
    auto consider = [&](AllReduce* a, NcclAlgorithm algorithm) {
      if (!a) return;
      const double t = rated_time(a, algorithm, bytes);
      if (t < best_time) {
        best = a;
        best_time = t;
      }
    };
    consider(tree_.get(), NcclAlgorithm::kTree);
    consider(nvls_.get(), NcclAlgorithm::kNvlsTree);
    return best;
  }

  // The time the choice compares: the algorithm's own prediction, except that on more than two
  // nodes NCCL rates trees no faster than the ring's network bandwidth allows (above).
  double rated_time(AllReduce* a, NcclAlgorithm across_nodes, double bytes) const {
    if (!nccl_ || nodes_ <= 2) return a->predicted_time(bytes);
    const double cap = ring_->links_algbw() * (ranks_ - 1.0) / ranks_;
    const double links = std::min(a->links_algbw(), cap);
    return nccl_choose(setting_, {{across_nodes, links}}, protocol_, bytes).time(bytes);
  }

  int nodes_;
  int ranks_;
  bool nccl_;
  NcclProtocol protocol_;
  NcclSetting setting_;
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
