// The traced step as Holistic Trace Analysis (HTA, facebookresearch/HolisticTraceAnalysis) reads
// PyTorch profiler (Kineto) traces: one file per traced rank, each with `distributedInfo`
// (backend, rank, world_size), `deviceProperties` and `schemaVersion`; GPU work as complete
// events (`ph: X`) with `cat` kernel or gpu_memcpy and `args` stream, device and correlation;
// each kernel paired (correlation id, `ac2g` flow) with a zero-length cudaLaunchKernel on the
// host thread, where the ProfilerStep#N annotation and the data loader's CPU work also live.
// Communication kernels are named ncclKernel_<Collective>_... (HTA's test for communication),
// copies Memcpy HtoD (its test for memory kernels); waits are left out (HTA counts the gaps
// between kernels as idle). docs/link-utilisation.md lists the mapping.
#pragma once

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "sim/results/result.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

// (rank, its trace) for every traced GPU, in rank order.
std::vector<std::pair<int, nlohmann::json>> hta_traces(const SimulationResult& result,
                                                       const GpuSpec& gpu);

}  // namespace ddpsim
