// The charge of one flow-mode ring or tree call beyond its flows (CollectiveCost in allreduce.h),
// shared by both algorithms. alpha: a fixed latency. nccl: NCCL's choice of protocol for the
// call's size, its latency and its bandwidth ceiling (nccl_tuning.h), using the algorithm
// bandwidth the algorithm's flows reach on idle links. `op` picks NCCL's per-collective factors
// (reduce-scatter and all-gather: ring only, P-1 steps).
#pragma once

#include <string>

#include "sim/collectives/allreduce.h"
#include "sim/cost/nccl_tuning.h"

namespace ddpsim {

class CallCost {
 public:
  // seconds_per_byte: the flows' time per byte of buffer on idle links (flow_bottleneck.h);
  // alpha_latency: what the alpha model charges per call.
  // spec: the communicator's shape (a group's own for node and rail groups).
  CallCost(const ClusterSpec& spec, NcclAlgorithm algorithm, int channels, CollectiveCost cost,
           double seconds_per_byte, double alpha_latency,
           CollectiveOp op = CollectiveOp::kAllReduce);

  bool nccl() const { return cost_.model == LatencyModel::kNccl; }
  NcclChoice choice(double bytes) const;
  // What every rank sleeps once the call's flows ended `elapsed` seconds after it started.
  double after_flows(double bytes, double elapsed) const;
  // The whole call on idle links.
  double predicted(double bytes) const;
  // What the flows give per byte of buffer on idle links, as an algorithm bandwidth.
  double links_algbw() const;
  // "ring" (alpha) or "ring/LL128" (nccl).
  std::string label(const std::string& algorithm, double bytes) const;

 private:
  NcclSetting setting_;
  NcclAlgorithm algorithm_;
  CollectiveOp op_;
  CollectiveCost cost_;
  double seconds_per_byte_;
  double alpha_latency_;
};

}  // namespace ddpsim
