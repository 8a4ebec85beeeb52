// Timing GPU work with CUDA events: `warmup` untimed runs, then `repeats` runs, each bracketed by
// its own event pair on `stream`; one synchronisation at the end, so the host never gaps the
// GPU between repeats. Returns the median, min, max of the per-repeat times (seconds).
#pragma once

#include <cuda_runtime_api.h>

#include <functional>

#include "sim/measurements/calibration_profile.h"

namespace ddpsim::calibrate {

RepeatStats time_on_stream(cudaStream_t stream, int warmup, int repeats,
                           const std::function<void()>& work);

}  // namespace ddpsim::calibrate
