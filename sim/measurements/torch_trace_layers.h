// Layers and steps of a torch.profiler trace: the steps (`ddpsim:step`, else ProfilerStep#N,
// else the whole trace) and, per step, each layer's forward and backward time, from ddpsim's
// marks or from Kineto's module events (torch_trace_import.h describes both). Internal to
// torch_trace_*.cpp.
#pragma once

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "sim/measurements/torch_trace_clock.h"
#include "sim/measurements/torch_trace_events.h"

namespace ddpsim::torch_trace {

struct Step {
  double start = 0, end = 0;
};

// Per step and layer: forward and backward seconds, in the order the layers ran.
struct StepTimes {
  std::vector<std::string> order;
  std::vector<std::map<std::string, std::pair<double, double>>> steps;
  std::vector<double> step_time, optimizer, forward, backward;
};

std::vector<Step> find_steps(const Trace& t);
StepTimes from_marks(const Trace& t, const std::vector<Step>& steps, const Clock& clock);
StepTimes from_modules(const Trace& t, const std::vector<Step>& steps, const Clock& clock);

}  // namespace ddpsim::torch_trace
