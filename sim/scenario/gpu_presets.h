// GPU presets: datasheet peak figures per GPU, dense (no structured sparsity). `cluster.gpu`
// names one of these, optionally overriding single fields.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ddpsim {

struct GpuPreset {
  std::string key;          // what `cluster.gpu` accepts, e.g. "a100-sxm-40gb"
  std::string description;  // e.g. "NVIDIA A100 SXM4 40 GB"
  std::string source;       // the datasheet the figures come from
  GpuSpec spec;             // spec.name == key
};

// Every preset, oldest architecture first.
const std::vector<GpuPreset>& gpu_presets();

// nullptr when `key` names no preset.
const GpuPreset* find_gpu_preset(std::string_view key);

// "p100-sxm2-16gb, v100-sxm2-16gb, ...": for error messages.
std::string gpu_preset_names();

// The presets with fp8 tensor cores (fp8_flops > 0), same format.
std::string fp8_preset_names();

}  // namespace ddpsim
