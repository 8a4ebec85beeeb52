// The traced step as people read it in Perfetto: a ProfilerStep#N slice per traced GPU (as the
// PyTorch profiler marks steps), `args` on every slice (step; bucket index, bytes, tensors and,
// on the communication stream, the algorithm; batch), the link that bound each communication
// and data slice (the most utilised of the run's busiest links and the GPU's own links while
// the slice ran), and utilisation counters of the busiest links over the step.
#pragma once

#include "sim/engine/run_context.h"
#include "sim/results/result.h"

namespace ddpsim {

// `result->trace` holds the traced slices and `result->links` the link usage.
void add_trace_details(const RunContext& ctx, SimulationResult* result);

constexpr int kCounterLinks = 4;  // counter tracks: the busiest links

}  // namespace ddpsim
