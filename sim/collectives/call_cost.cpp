#include "sim/collectives/call_cost.h"

#include <algorithm>
#include <limits>

namespace ddpsim {

CallCost::CallCost(const ClusterSpec& spec, NcclAlgorithm algorithm, int channels,
                   CollectiveCost cost, double seconds_per_byte, double alpha_latency,
                   CollectiveOp op)
    : setting_(nccl_setting(spec, channels)),
      algorithm_(algorithm),
      op_(op),
      cost_(cost),
      seconds_per_byte_(seconds_per_byte),
      alpha_latency_(alpha_latency) {
  setting_.latency_scale = cost.nccl_latency;
}

double CallCost::links_algbw() const {
  return seconds_per_byte_ > 0 ? 1.0 / seconds_per_byte_ : std::numeric_limits<double>::max();
}

NcclChoice CallCost::choice(double bytes) const {
  return nccl_choose(setting_, {{algorithm_, links_algbw()}}, cost_.protocol, bytes, op_);
}

double CallCost::after_flows(double bytes, double elapsed) const {
  if (!nccl()) return alpha_latency_;
  const NcclChoice c = choice(bytes);
  return std::max(0.0, bytes / c.algbw - elapsed) + c.latency;
}

double CallCost::predicted(double bytes) const {
  if (!nccl()) return bytes * seconds_per_byte_ + alpha_latency_;
  return choice(bytes).time(bytes);
}

std::string CallCost::label(const std::string& algorithm, double bytes) const {
  if (!nccl()) return algorithm;
  return algorithm + "/" + nccl_protocol_name(choice(bytes).protocol);
}

}  // namespace ddpsim
