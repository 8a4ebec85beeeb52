// `auto` for the reduce-scatters and all-gathers of sharded data parallelism over the world, on
// clusters of one GPU per node (auto_may_run_pat, nccl_tuning.h): NCCL's tuner rates the ring and
// PAT for each call's size under its own model (nccl_choose over the ring's protocols and PAT's
// Simple, both from the ring's bus bandwidth on these links) and runs the pick, as NCCL 2.23 and
// later do. The call then runs on the picked algorithm's own flows: the ring with NCCL's ring
// latency (ring_allreduce.cpp), PAT with its log-step messages (pat_collective.cpp). Every rank
// picks by the size alone, so all ranks run the same algorithm. Elsewhere auto's sharded calls
// are the plain ring (sync_factory.cpp), as NCCL's tuner leaves them.
#include <memory>
#include <string>

#include "sim/collectives/allreduce.h"
#include "sim/cost/nccl_tuning.h"

namespace ddpsim {

// NCCL's PAT all-gather and reduce-scatter (pat_collective.cpp).
std::unique_ptr<AllReduce> make_pat_collective(Transport* transport, CollectiveOp op);

namespace {

class AutoCollective : public AllReduce {
 public:
  AutoCollective(Transport* transport, CollectiveOp op, CollectiveMode mode, int channels,
                 CollectiveCost cost)
      : op_(op),
        protocol_(cost.protocol),
        setting_(nccl_setting(transport->platform().logical_spec(),
                              ring_channel_count(transport->platform().spec, channels))),
        ring_(make_ring_collective(transport, op, mode, channels, cost)),
        pat_(make_pat_collective(transport, op)) {
    setting_.latency_scale = cost.nccl_latency;
  }

  void run(int rank, uint64_t tag, double bytes) override { pick(bytes)->run(rank, tag, bytes); }

  std::string name() const override { return "auto"; }
  std::string algorithm_for(double bytes) const override {
    return pick(bytes)->algorithm_for(bytes) + " (auto)";
  }
  double predicted_time(double bytes) const override { return pick(bytes)->predicted_time(bytes); }
  double links_algbw() const override { return ring_->links_algbw(); }

 private:
  AllReduce* pick(double bytes) const {
    const double links = ring_->links_algbw();
    if (!(bytes > 0) || !(links > 0)) return ring_.get();
    const NcclChoice choice =
        nccl_choose(setting_, {{NcclAlgorithm::kRing, links}, {NcclAlgorithm::kPat, links}},
                    protocol_, bytes, op_);
    return choice.algorithm == NcclAlgorithm::kPat ? pat_.get() : ring_.get();
  }

  CollectiveOp op_;
  NcclProtocol protocol_;
  NcclSetting setting_;
  std::unique_ptr<AllReduce> ring_, pat_;
};

}  // namespace

std::unique_ptr<AllReduce> make_auto_collective(Transport* transport, CollectiveOp op,
                                                CollectiveMode mode, int channels,
                                                CollectiveCost cost) {
  return std::make_unique<AutoCollective>(transport, op, mode, channels, cost);
}

}  // namespace ddpsim
