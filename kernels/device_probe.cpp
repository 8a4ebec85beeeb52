#include "kernels/device_probe.h"

#include <cuda_runtime_api.h>

namespace ddpsim::kernels {

int cuda_device_count(std::string* reason) {
  int count = 0;
  const cudaError_t status = cudaGetDeviceCount(&count);
  if (status != cudaSuccess) {
    cudaGetLastError();
    if (reason != nullptr)
      *reason =
          std::string("no CUDA device: cudaGetDeviceCount failed: ") + cudaGetErrorString(status);
    return 0;
  }
  if (count == 0 && reason != nullptr) *reason = "no CUDA device: cudaGetDeviceCount found 0";
  return count;
}

}  // namespace ddpsim::kernels
