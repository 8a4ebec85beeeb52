// ddpsim gpus: the GPU presets `cluster.gpu` accepts, with their datasheet figures.
#include <cstdio>

#include "sim/cli/command.h"
#include "sim/scenario/gpu_presets.h"

namespace ddpsim::cli {
namespace {

int run() {
  std::printf("%-16s %9s %9s %9s %9s %8s %10s  %s\n", "gpu", "fp32", "tf32", "fp16", "bf16",
              "memory", "HBM", "description");
  std::printf("%-16s %9s %9s %9s %9s %8s %10s\n", "", "TFLOP/s", "TFLOP/s", "TFLOP/s", "TFLOP/s",
              "GiB", "GB/s");
  for (const GpuPreset& p : gpu_presets()) {
    const GpuSpec& g = p.spec;
    std::printf("%-16s %9.1f %9.1f %9.1f %9.1f %8.1f %10.0f  %s\n", p.key.c_str(),
                g.fp32_flops / 1e12, g.tf32_flops / 1e12, g.fp16_flops / 1e12, g.bf16_flops / 1e12,
                g.memory_bytes / (1024.0 * 1024 * 1024), g.hbm_bandwidth / 1e9,
                p.description.c_str());
  }
  std::printf(
      "\nDense peaks from the datasheets (sources in sim/scenario/gpu_presets.cpp); 0 = "
      "not supported (falls back to fp16 / fp32).\n");
  return 0;
}

const bool registered = register_command({
    "gpus",
    "List the GPU presets with peak FLOP/s, memory and HBM bandwidth",
    21,
    [](CLI::App*) {},
    run,
});

}  // namespace
}  // namespace ddpsim::cli
