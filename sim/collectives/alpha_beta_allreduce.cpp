// All-reduce from a measured alpha-beta table (`sync.alpha_beta`, read by the scenario loader):
// once every rank has joined, each rank sleeps alpha + beta * S of the table's row for this size
// (alpha_beta_time: the algorithm's rows, else the `auto` rows). No flow is simulated, so the
// call does not compete with other traffic for links: the measured time already contains the
// contention of the machine it was measured on. Bytes are still accounted, as the ring moves
// them (2(p-1)/p * S from each rank to the next, the volume behind nccl-tests' bus bandwidth),
// so byte totals stay comparable with link-simulated runs. Reduce-scatter and all-gather (rows of
// that `op:` in the table, make_alpha_beta_collective) account one ring pass, (p-1)/p * S.
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/collective_sync.h"
#include "sim/measurements/calibration_profile.h"

namespace ddpsim {
namespace {

class AlphaBetaAllReduce : public AllReduce {
 public:
  AlphaBetaAllReduce(Transport* transport, CollectiveOp op, AllReduceAlgorithm algorithm,
                     AlphaBetaTable table)
      : transport_(transport),
        passes_(op == CollectiveOp::kAllReduce ? 2 : 1),
        pf_(transport->platform()),
        p_(static_cast<int>(pf_.gpus.size())),
        algorithm_(algorithm),
        table_(std::move(table)),
        start_(p_) {
    if (!alpha_beta_time(table_, algorithm_, 1.0))
      throw std::invalid_argument(std::string("alpha-beta table has no rows for '") +
                                  algorithm_name(algorithm_) + "' nor 'auto'");
  }

  void run(int rank, uint64_t tag, double bytes) override {
    if (p_ == 1 || bytes <= 0) return;
    start_.arrive_and_wait(tag);
    transport_->account(pf_.gpus[rank], pf_.gpus[(rank + 1) % p_],
                        passes_ * (p_ - 1.0) / p_ * bytes);
    const double t = *alpha_beta_time(table_, algorithm_, bytes);
    if (t > 0) simgrid::s4u::this_actor::sleep_for(t);
  }

  std::string name() const override {
    return std::string(algorithm_name(algorithm_)) + " (alpha-beta table)";
  }

 private:
  Transport* transport_;
  int passes_;  // ring passes the bytes are accounted as: 2 for all-reduce, else 1
  const ClusterPlatform& pf_;
  int p_;
  AllReduceAlgorithm algorithm_;
  AlphaBetaTable table_;
  CallBarrier start_;
};

}  // namespace

std::unique_ptr<AllReduce> make_alpha_beta_allreduce(Transport* transport,
                                                     AllReduceAlgorithm algorithm,
                                                     AlphaBetaTable table) {
  return make_alpha_beta_collective(transport, CollectiveOp::kAllReduce, algorithm,
                                    std::move(table));
}

std::unique_ptr<AllReduce> make_alpha_beta_collective(Transport* transport, CollectiveOp op,
                                                      AllReduceAlgorithm algorithm,
                                                      AlphaBetaTable table) {
  return std::make_unique<AlphaBetaAllReduce>(transport, op, algorithm, std::move(table));
}

}  // namespace ddpsim
