// Cross-checks event timings with CUPTI activity records: runs a piece of work once with kernel
// activity recording on and returns the number of kernels, the sum of their durations and the
// idle gaps between consecutive kernels (launch overhead the events include but kernels do not).
// Recording is enabled only around that one run, so it never perturbs the timed repeats.
// CUPTI is process-global; where it cannot be used (e.g. no profiling permission in a container)
// available() is false and why() says so, and the profile records zero kernels.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <string>

#include "sim/measurements/calibration_profile.h"

namespace ddpsim::calibrate {

class KernelTracer {
 public:
  KernelTracer();
  ~KernelTracer();
  KernelTracer(const KernelTracer&) = delete;
  KernelTracer& operator=(const KernelTracer&) = delete;

  bool available() const { return available_; }
  const std::string& why() const { return why_; }

  KernelTrace trace(cudaStream_t stream, const std::function<void()>& work);

 private:
  bool available_ = false;
  std::string why_;
};

}  // namespace ddpsim::calibrate
