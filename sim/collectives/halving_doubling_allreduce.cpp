// Recursive halving-doubling all-reduce (Rabenseifner; MPICH's reduce_scatter_allgather).
//
// Power-of-two p: reduce-scatter by recursive halving, step i (i = 0 .. log2(p)-1) exchanging
// S/2^(i+1) with rank XOR 2^i (the large early steps stay between neighbouring ranks, i.e.
// inside a node), then all-gather by recursive doubling, the same steps in reverse. Every step is
// one message each way between partners; each message pays its own alpha (the sender sleeps
// message_latency before the put), so on uncontended links the call takes
// 2(p-1)/p * S/B + 2 log2(p) alpha.
//
// Other p: with q the largest power of two below p and r = p - q, ranks 0 .. 2r-1 pair up before
// the main phase: each even rank sends its whole S to rank+1, which reduces it and takes part as
// new rank (rank/2); ranks >= 2r take part as rank - r. Afterwards each odd rank < 2r sends the
// result (S) back to its even partner. On uncontended links: 2 (S/B + alpha) + the power-of-two
// time for q; total bytes 2(q-1) S + 2 r S (collective_formulas.h).
//
// Reduce-scatter and all-gather are the two halves alone (op). Reduce-scatter: the same fold (each
// even rank < 2r sends its S to rank+1), recursive halving over the q ranks, then each odd rank
// < 2r sends its partner that rank's S/p shard; all-gather mirrors it: even ranks < 2r hand
// their S/p to rank+1, recursive doubling from S/q over the q ranks, odd ranks send the whole S
// back. Block boundaries are not tracked: after the q-rank halving an odd rank's S/q block
// stands for its pair's two shards (the cost is what matters). On uncontended links each takes
// (q-1)/q S/B + log2(q) alpha, plus (S + S/p)/B + 2 alpha when p is not a power of two
// (halving_doubling_reduce_scatter_time()).
//
// Messages per call: 2 p log2(q) + 2r: per-step messages are the algorithm (steps depend on each
// other), there is no separate chunked mode.
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/collective_sync.h"

namespace ddpsim {
namespace {

class HalvingDoublingAllReduce : public AllReduce {
 public:
  HalvingDoublingAllReduce(Transport* transport, CollectiveOp op)
      : transport_(transport),
        op_(op),
        pf_(transport->platform()),
        p_(static_cast<int>(pf_.gpus.size())),
        start_(p_) {
    static int instances = 0;
    prefix_ = "hd" + std::to_string(instances++) + ":";
    while (q_ * 2 <= p_) q_ *= 2;
    r_ = p_ - q_;
  }

  void run(int rank, uint64_t tag, double bytes) override {
    if (p_ == 1 || bytes <= 0) return;
    start_.arrive_and_wait(tag);
    const bool scatter = op_ != CollectiveOp::kAllGather,
               gather = op_ != CollectiveOp::kReduceScatter;
    // What the fold sends before and after the main phase (all-reduce: S both ways).
    const double shard = bytes / p_;
    const double pre = gather && !scatter ? shard : bytes;
    const double post = scatter && !gather ? shard : bytes;
    int new_rank;
    if (rank < 2 * r_) {
      if (rank % 2 == 0) {  // folds into rank+1 and waits for the result
        exchange(rank, -1, rank + 1, pre, "pre");
        exchange(rank, rank + 1, -1, post, "post");
        return;
      }
      exchange(rank, rank - 1, -1, pre, "pre");
      new_rank = rank / 2;
    } else {
      new_rank = rank - r_;
    }
    double piece = scatter ? bytes : bytes / q_;
    if (scatter) {
      for (int mask = 1; mask < q_; mask <<= 1) {  // reduce-scatter: halve the data
        piece /= 2;
        const int partner = real_rank(new_rank ^ mask);
        exchange(rank, partner, partner, piece, "rs" + std::to_string(mask));
      }
    }
    if (gather) {
      for (int mask = q_ / 2; mask >= 1; mask >>= 1) {  // all-gather: double it back
        const int partner = real_rank(new_rank ^ mask);
        exchange(rank, partner, partner, piece, "ag" + std::to_string(mask));
        piece *= 2;
      }
    }
    if (rank < 2 * r_) exchange(rank, -1, rank - 1, post, "post");
  }

  std::string name() const override { return "halving-doubling"; }

 private:
  int real_rank(int new_rank) const { return new_rank < r_ ? 2 * new_rank + 1 : new_rank + r_; }

  // Receives `bytes` from `from` and sends `bytes` to `to` (-1: that direction is idle). Mailboxes
  // are per (sender, receiver, step), so successive calls on them match in order.
  void exchange(int rank, int from, int to, double bytes, const std::string& step) {
    std::vector<simgrid::s4u::CommPtr> comms;
    if (from >= 0) comms.push_back(transport_->irecv(box(from, rank, step)));
    if (to >= 0)
      comms.push_back(transport_->isend(pf_.gpus[rank], pf_.gpus[to], box(rank, to, step), bytes));
    simgrid::s4u::Comm::wait_all(comms);
  }

  std::string box(int from, int to, const std::string& step) const {
    return prefix_ + step + ":" + std::to_string(from) + ">" + std::to_string(to);
  }

  Transport* transport_;
  CollectiveOp op_;
  const ClusterPlatform& pf_;
  int p_;
  int q_ = 1, r_ = 0;
  std::string prefix_;
  CallBarrier start_;
};

}  // namespace

std::unique_ptr<AllReduce> make_halving_doubling_allreduce(Transport* transport) {
  return make_halving_doubling_collective(transport, CollectiveOp::kAllReduce);
}

std::unique_ptr<AllReduce> make_halving_doubling_collective(Transport* transport, CollectiveOp op) {
  if (op == CollectiveOp::kBroadcast)
    throw std::invalid_argument("make_halving_doubling_collective: broadcast is not modelled");
  return std::make_unique<HalvingDoublingAllReduce>(transport, op);
}

}  // namespace ddpsim
