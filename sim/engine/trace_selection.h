// Which GPUs trace.json shows (their last step). By default the first GPU of every node (at most
// 64 nodes, spread evenly, the first and last included) and the slowest GPU of that step (the
// largest straggler factor, when stragglers make one slower); or every GPU, none, or a list.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ddpsim {

struct TraceGpus {
  enum class Kind { kAuto, kAll, kList };
  Kind kind = Kind::kAuto;
  std::vector<int> ranks;  // kList, ascending; empty = no trace

  static TraceGpus none() { return {Kind::kList, {}}; }
};

constexpr int kMaxTracedNodes = 64;
constexpr int kMaxTraceRank = 1 << 20;  // bounds a listed range before the cluster is known

// "auto", "all", "none", or ranks and ranges: "0,5,8-15". False with a message otherwise.
bool parse_trace_gpus(const std::string& text, TraceGpus* out, std::string* error);
// The canonical text of a selection (what parse_trace_gpus reads back).
std::string trace_gpus_text(const TraceGpus& gpus);

// The ranks traced in `scenario`, ascending. Throws InputError for a rank beyond the cluster.
std::vector<int> traced_ranks(const Scenario& scenario, const TraceGpus& gpus);

}  // namespace ddpsim
