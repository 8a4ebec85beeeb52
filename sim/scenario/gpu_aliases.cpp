#include "sim/scenario/gpu_aliases.h"

#include <algorithm>
#include <cctype>
#include <cstring>

namespace ddpsim {

// nvidia-smi --query-gpu=name prints the board's product name string; the spellings below are
// the ones NVIDIA's drivers report (docs/cli.md lists them with where each comes from). Families
// are matched longest first, so the order of rows does not matter (gb200 before b200, a100
// before a10, l40s before l4).
const std::vector<GpuName>& gpu_table() {
  static const std::vector<GpuName> table = {
      {"Tesla K80", "k80", "k80"},
      {"Tesla P100-SXM2-16GB", "p100-sxm2-16gb", "p100"},
      {"Tesla V100-SXM2-16GB", "v100-sxm2-16gb", "v100"},
      {"Tesla V100-SXM2-32GB", "v100-sxm2-32gb", "v100"},
      {"NVIDIA GeForce RTX 2080 Ti", "rtx-2080-ti", "2080ti"},
      {"Tesla T4", "t4", "t4"},
      {"NVIDIA A100-SXM4-40GB", "a100-sxm-40gb", "a100"},
      {"NVIDIA A100-SXM4-80GB", "a100-sxm-80gb", "a100"},
      {"NVIDIA A100-PCIE-40GB", "a100-pcie-40gb", "a100"},
      {"NVIDIA GeForce RTX 3090", "rtx-3090", "3090"},
      {"NVIDIA L4", "l4", "l4"},
      {"NVIDIA GeForce RTX 4090", "rtx-4090", "4090"},
      {"NVIDIA H100 80GB HBM3", "h100-sxm-80gb", "h100"},
      {"NVIDIA H100 PCIe", "h100-pcie-80gb", "h100"},
      {"NVIDIA H200", "h200-sxm-141gb", "h200"},
      {"NVIDIA B200", "b200-sxm-180gb", "b200"},
      {"NVIDIA GB200", "gb200-186gb", "gb200"},
      {"AMD Instinct MI300X", "mi300x-192gb", "mi300"},
      // Families without a preset: a device of theirs is not mistaken for a neighbour.
      {"", "", "gb300"},
      {"", "", "gb10"},
      {"", "", "h800"},
      {"", "", "h20"},
      {"", "", "a800"},
      {"", "", "a10g"},
      {"", "", "a30"},
      {"", "", "a40"},
      {"", "", "a10"},
      {"", "", "l40s"},
      {"", "", "l40"},
      {"", "", "5090"},
      {"", "", "mi250"},
      {"", "", "titanv"},
  };
  return table;
}

const std::vector<GpuAlias>& gpu_aliases() {
  static const std::vector<GpuAlias> aliases = [] {
    std::vector<GpuAlias> out;
    for (const GpuName& row : gpu_table())
      if (*row.preset != '\0') out.push_back(row);
    return out;
  }();
  return aliases;
}

std::string normalized_gpu_name(std::string_view name) {
  std::string out;
  for (char c : name) {
    const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (std::isspace(static_cast<unsigned char>(c))) {
      if (!out.empty() && out.back() != ' ') out += ' ';
    } else {
      out += lower;
    }
  }
  if (!out.empty() && out.back() == ' ') out.pop_back();
  for (bool stripped = true; stripped;) {
    stripped = false;
    for (std::string_view brand : {"nvidia ", "tesla ", "geforce ", "amd instinct ", "amd "}) {
      if (out.compare(0, brand.size(), brand) == 0) {
        out.erase(0, brand.size());
        stripped = true;
      }
    }
  }
  return out;
}

const GpuPreset* find_gpu_preset_or_alias(std::string_view name) {
  if (const GpuPreset* exact = find_gpu_preset(name)) return exact;
  const std::string wanted = normalized_gpu_name(name);
  if (wanted.empty()) return nullptr;
  for (const GpuPreset& p : gpu_presets())
    if (normalized_gpu_name(p.key) == wanted) return &p;
  for (const GpuAlias& alias : gpu_aliases())
    if (normalized_gpu_name(alias.name) == wanted) return find_gpu_preset(alias.preset);
  return nullptr;
}

std::vector<std::string> gpu_preset_candidates(std::string_view name) {
  std::vector<std::string> words;
  std::string word;
  for (char c : normalized_gpu_name(name) + " ") {
    if (c == ' ' || c == '-' || c == '_') {
      if (!word.empty()) words.push_back(word);
      word.clear();
    } else {
      word += c;
    }
  }
  std::vector<std::string> keys;
  if (words.empty()) return keys;
  for (const GpuPreset& p : gpu_presets()) {
    const std::string key = normalized_gpu_name(p.key);
    bool all = true;
    for (const std::string& w : words) all = all && key.find(w) != std::string::npos;
    if (all) keys.push_back(p.key);
  }
  return keys;
}

std::string gpu_family(std::string_view name) {
  if (const GpuPreset* preset = find_gpu_preset_or_alias(name))
    for (const GpuName& row : gpu_table())
      if (preset->key == row.preset) return row.family;
  std::string s;
  for (char c : name)
    if (std::isalnum(static_cast<unsigned char>(c)))
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const char* best = "";
  for (const GpuName& row : gpu_table())
    if (std::strlen(row.family) > std::strlen(best) && s.find(row.family) != std::string::npos)
      best = row.family;
  return best;
}

}  // namespace ddpsim
