// Device ceilings: what this GPU achieves on the simplest kernels, so layers the harness did
// not time can be predicted from a roofline (sim/measurements/roofline_fit.h).
//   GEMM: a large square cuBLASLt GEMM per precision, 2 m n k / median time.
//   D2D:  cudaMemcpyAsync device to device, counted as read + write (2 bytes / time).
//   H2D, D2H: cudaMemcpyAsync from/to pinned host memory, bytes / time.
#pragma once

#include <cuda_runtime_api.h>

#include <optional>

#include "kernels/gemm.h"
#include "sim/measurements/calibration_profile.h"

namespace ddpsim::calibrate {

struct TimingOptions {
  int warmup = 5;
  int repeats = 20;
};

GemmCeiling measure_gemm(kernels::Blas& blas, Precision precision, int64_t size,
                         const TimingOptions& t);

enum class CopyKind { kDeviceToDevice, kHostToDevice, kDeviceToHost };
CopyCeiling measure_copy(cudaStream_t stream, CopyKind kind, size_t bytes, const TimingOptions& t);

}  // namespace ddpsim::calibrate
