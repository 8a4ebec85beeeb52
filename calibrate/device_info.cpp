#include "calibrate/device_info.h"

#include <cuda_runtime_api.h>
#include <unistd.h>

#include <ctime>
#include <string>

#include "kernels/check.h"

namespace ddpsim::calibrate {

namespace {

std::string cuda_version_string(int v) {  // 13000 -> "13.0"
  return std::to_string(v / 1000) + "." + std::to_string(v % 1000 / 10);
}

}  // namespace

DeviceInfo describe_device(int device, int gpus) {
  cudaDeviceProp prop{};
  DDPSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  DeviceInfo d;
  d.name = prop.name;
  d.compute_capability = std::to_string(prop.major) + "." + std::to_string(prop.minor);
  d.memory_bytes = static_cast<double>(prop.totalGlobalMem);
  d.multiprocessors = prop.multiProcessorCount;
  d.gpus = gpus;
  int v = 0;
  DDPSIM_CUDA_CHECK(cudaDriverGetVersion(&v));
  d.driver = cuda_version_string(v);
  DDPSIM_CUDA_CHECK(cudaRuntimeGetVersion(&v));
  d.cuda_runtime = cuda_version_string(v);
  char host[256] = {0};
  if (::gethostname(host, sizeof host - 1) == 0) d.host = host;
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", &utc);
  d.date = date;
  return d;
}

}  // namespace ddpsim::calibrate
