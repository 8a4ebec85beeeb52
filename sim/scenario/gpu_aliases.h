// The one GPU table: each row a preset key, the name nvidia-smi (and torch.cuda.get_device_name,
// rocm-smi) prints for it, and its family (what a measurement on one GPU matches: a profile, an
// alpha-beta table or a platform fit measured on "NVIDIA B200" describes b200-sxm-180gb).
// Rows without a preset name a family ddpsim has no preset for, so that a device of that family
// is told apart from its neighbours (an H800 is not an H100).
//
// The nvidia-smi names are accepted wherever a preset key is: `cluster.gpu: NVIDIA H100 80GB HBM3`
// is the h100-sxm-80gb preset. Each alias names exactly one preset; matching ignores case
// and the vendor/brand words "NVIDIA", "Tesla", "GeForce" and "AMD Instinct" in front, so
// "A100-SXM4-80GB" and "NVIDIA A100-SXM4-80GB" are the same alias. A board nvidia-smi names
// that has no preset of its own (e.g. "NVIDIA A100 80GB PCIe", "NVIDIA H200 NVL") has no alias:
// it is refused with the preset list rather than mapped to a near relative.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "sim/scenario/gpu_presets.h"

namespace ddpsim {

struct GpuName {
  const char* name;    // as nvidia-smi prints it, e.g. "NVIDIA A100-SXM4-40GB" ("" for none)
  const char* preset;  // the preset key it stands for, e.g. "a100-sxm-40gb" ("" for none)
  const char* family;  // e.g. "a100": lower-case letters and digits found in a device's name
};
using GpuAlias = GpuName;

// Every row of the table.
const std::vector<GpuName>& gpu_table();
// The rows with a preset: every preset has exactly one (gpu_names_test).
const std::vector<GpuAlias>& gpu_aliases();

// The GPU family a name belongs to ("NVIDIA A100-SXM4-80GB" and "a100-sxm-40gb" -> "a100"): a
// preset key or alias is its row's family; any other name the longest family found in it (letters
// and digits, lower case); "" when none.
std::string gpu_family(std::string_view name);

// The alias's matching form: lower case, brand words in front removed, runs of spaces as one.
std::string normalized_gpu_name(std::string_view name);

// The preset a key or alias names (keys exactly or ignoring case, aliases as above); nullptr when
// none.
const GpuPreset* find_gpu_preset_or_alias(std::string_view name);

// The preset keys a partial name may mean (`H100`: h100-sxm-80gb and h100-pcie-80gb): those
// containing every word of the name; for a message that lists them, never to pick one.
std::vector<std::string> gpu_preset_candidates(std::string_view name);

}  // namespace ddpsim
