// ddpsim gpus [--json | --csv]: the GPU presets `cluster.gpu` accepts, with their datasheet
// figures, and the names nvidia-smi prints for them (gpu_aliases.h, the one table of aliases;
// docs/cli.md lists the same, checked by cli_conventions_test).
#include <cstdio>
#include <string>

#include "sim/cli/command.h"
#include "sim/cli/table_output.h"
#include "sim/scenario/gpu_aliases.h"
#include "sim/scenario/gpu_presets.h"

namespace ddpsim::cli {
namespace {

TableFormat format;

// The nvidia-smi names of a preset, "; " between them ("" for none).
std::string aliases_of(const GpuPreset& preset) {
  std::string names;
  for (const GpuAlias& a : gpu_aliases())
    if (preset.key == a.preset) names += (names.empty() ? "" : "; ") + std::string(a.name);
  return names;
}

int run() {
  OutputTable table{{"gpu", "fp32_flops", "tf32_flops", "fp16_flops", "bf16_flops", "fp8_flops",
                     "memory_bytes", "hbm_bandwidth_bytes_per_s", "description", "nvidia_smi_name"},
                    {}};
  for (const GpuPreset& p : gpu_presets()) {
    const GpuSpec& g = p.spec;
    table.rows.push_back({p.key, g.fp32_flops, g.tf32_flops, g.fp16_flops, g.bf16_flops,
                          g.fp8_flops, g.memory_bytes, g.hbm_bandwidth, p.description,
                          aliases_of(p)});
  }
  if (!format.text()) {
    print_table(table, format);
    return 0;
  }
  std::printf("%-16s %9s %9s %9s %9s %9s %8s %10s  %s\n", "gpu", "fp32", "tf32", "fp16", "bf16",
              "fp8", "memory", "HBM", "description");
  std::printf("%-16s %9s %9s %9s %9s %9s %8s %10s\n", "", "TFLOP/s", "TFLOP/s", "TFLOP/s",
              "TFLOP/s", "TFLOP/s", "GiB", "GB/s");
  for (const GpuPreset& p : gpu_presets()) {
    const GpuSpec& g = p.spec;
    std::printf("%-16s %9.1f %9.1f %9.1f %9.1f %9.1f %8.1f %10.0f  %s\n", p.key.c_str(),
                g.fp32_flops / 1e12, g.tf32_flops / 1e12, g.fp16_flops / 1e12, g.bf16_flops / 1e12,
                g.fp8_flops / 1e12, g.memory_bytes / (1024.0 * 1024 * 1024), g.hbm_bandwidth / 1e9,
                p.description.c_str());
  }
  std::printf(
      "\nDense peaks from the datasheets (sources in sim/scenario/gpu_presets.cpp); 0 = "
      "not supported (falls back to fp16 / fp32; fp8 is refused). Memory in GiB (2^30 bytes), "
      "bandwidth in GB/s "
      "(10^9 bytes/s).\n");
  std::printf(
      "\nnvidia-smi names (--query-gpu=name), accepted by cluster.gpu as the preset; case and the "
      "words NVIDIA, Tesla, GeForce, AMD Instinct in front are ignored:\n");
  for (const GpuAlias& a : gpu_aliases()) std::printf("  %-28s %s\n", a.name, a.preset);
  return 0;
}

const bool registered = register_command({
    "gpus",
    "List the GPU presets with peak FLOP/s, memory and HBM bandwidth",
    21,
    [](CLI::App* app) { add_table_format(app, &format); },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
