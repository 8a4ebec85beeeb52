// NCCL's PAT all-gather and reduce-scatter (NCCL 2.23 on, "Parallel Aggregated Trees"), for
// communicators of one GPU per node: a variation of Bruck's algorithm whose schedule keeps the
// buffers bounded (sjeaugey, NVIDIA/nccl#1473; the NCCL 2.23 release blog, "PAT: logarithmic
// scaling for ReduceScatter and AllGather"). NCCL's tuner considers it only where nNodes ==
// nRanks and never for all-reduce (docs/scale.md).
//
// All-gather, p ranks of S/p each: ceil(log2 p) steps; at step k (d = 2^k) every rank sends the
// min(d, p - d) shards it holds to rank - d and receives as many from rank + d (mod p), so after
// the last step it holds all p. Reduce-scatter runs the same steps in reverse with the
// directions swapped, each message a partial sum. Every rank sends (p-1) S/p in all, one message
// per step, each paying its own alpha (the sender sleeps message_latency before the put): on
// uncontended links a call takes (p-1)/p S/B + ceil(log2 p) alpha, against the ring's
// (p-1)/p S/B + (p-1) alpha. It charges the plain alpha per step: NCCL's PAT latencies
// (nccl_tuning.h) decide only `auto`'s choice between the ring and PAT (auto_collective.cpp).
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/collective_sync.h"

namespace ddpsim {
namespace {

class PatCollective : public AllReduce {
 public:
  PatCollective(Transport* transport, CollectiveOp op)
      : transport_(transport),
        op_(op),
        pf_(transport->platform()),
        p_(static_cast<int>(pf_.gpus.size())),
        start_(p_) {
    static int instances = 0;
    prefix_ = "pat" + std::to_string(instances++) + ":";
    while ((1 << steps_) < p_) ++steps_;
  }

  void run(int rank, uint64_t tag, double bytes) override {
    if (p_ == 1 || bytes <= 0) return;
    start_.arrive_and_wait(tag);
    const double shard = bytes / p_;
    const bool gather = op_ == CollectiveOp::kAllGather;
    for (int i = 0; i < steps_; ++i) {
      const int k = gather ? i : steps_ - 1 - i;
      const int d = 1 << k;
      const int ahead = (rank + d) % p_, behind = (rank - d + p_) % p_;
      const double piece = std::min(d, p_ - d) * shard;
      // All-gather sends back (to rank - d); reduce-scatter forward, mirroring it.
      exchange(rank, gather ? ahead : behind, gather ? behind : ahead, piece, k);
    }
  }

  std::string name() const override { return "pat"; }

 private:
  void exchange(int rank, int from, int to, double bytes, int step) {
    std::vector<simgrid::s4u::CommPtr> comms;
    comms.push_back(transport_->irecv(box(from, rank, step)));
    comms.push_back(transport_->isend(pf_.gpus[rank], pf_.gpus[to], box(rank, to, step), bytes));
    simgrid::s4u::Comm::wait_all(comms);
  }

  std::string box(int from, int to, int step) const {
    return prefix_ + std::to_string(step) + ":" + std::to_string(from) + ">" + std::to_string(to);
  }

  Transport* transport_;
  CollectiveOp op_;
  const ClusterPlatform& pf_;
  int p_;
  int steps_ = 0;
  std::string prefix_;
  CallBarrier start_;
};

}  // namespace

std::unique_ptr<AllReduce> make_pat_collective(Transport* transport, CollectiveOp op) {
  if (op != CollectiveOp::kAllGather && op != CollectiveOp::kReduceScatter)
    throw std::invalid_argument("make_pat_collective: PAT is all-gather and reduce-scatter only");
  return std::make_unique<PatCollective>(transport, op);
}

}  // namespace ddpsim
