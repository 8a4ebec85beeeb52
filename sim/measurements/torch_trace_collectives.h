// Collective calls in a torch.profiler trace: `record_param_comms` events (with their sizes),
// else `nccl:*` / `gloo:*` calls; each timed by the GPU kernels launched inside it when the
// trace has kernels, else by its host duration. Internal to torch_trace_*.cpp.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/measurements/calibration_profile.h"
#include "sim/measurements/torch_trace_clock.h"
#include "sim/measurements/torch_trace_events.h"

namespace ddpsim::torch_trace {

struct CollectiveCall {
  std::string name;
  std::optional<CollectiveOp> op;
  double bytes = 0;  // 0: unknown
  double seconds = 0;
  int group = 0;
};

std::vector<CollectiveCall> find_collectives(const Trace& t, const Clock& clock);

}  // namespace ddpsim::torch_trace
