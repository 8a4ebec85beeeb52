// Whether a usable CUDA device is present. On a machine without a GPU (or without a driver)
// cudaGetDeviceCount fails, e.g. "CUDA driver version is insufficient for CUDA runtime version";
// that is "no GPU present", not a crash: the harness exits 3 and GPU tests skip with `reason`.
#pragma once

#include <string>

namespace ddpsim::kernels {

// Returns the number of devices (0 when none), and in *reason why none could be used.
int cuda_device_count(std::string* reason);

}  // namespace ddpsim::kernels
