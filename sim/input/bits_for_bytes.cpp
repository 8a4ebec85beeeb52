#include "sim/input/bits_for_bytes.h"

#include <fmt/format.h>

#include "sim/text/units.h"

namespace ddpsim {
namespace {

struct TypicalRate {
  const char* technology;
  const char* label;
  double low, high;  // bytes/s per GPU and direction
};

// docs/cli.md cites each: NVIDIA's NVLink generations (P100's NVLink 1 at 20 GB/s per link and
// direction; per GPU 150 GB/s on V100's NVSwitch to 900 GB/s on B200's), and PCI-SIG's x8 Gen3
// (7.9 GB/s) to x16 Gen6 (121 GB/s) per direction.
const TypicalRate kRates[] = {
    {"nvswitch", "NVSwitch", 150e9, 900e9},
    {"nvlink-mesh", "NVLink", 20e9, 900e9},
    {"pcie", "PCIe", 7.8e9, 128e9},
};

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

bool in_bits(const std::string& t) { return t.size() > 3 && t.substr(t.size() - 3) == "bps"; }

}  // namespace

std::optional<std::string> bits_for_bytes_warning(const std::string& key, const std::string& text,
                                                  double bytes_per_second,
                                                  const std::string& technology) {
  const std::string written = trimmed(text);
  if (!in_bits(written)) return std::nullopt;
  for (const TypicalRate& r : kRates) {
    if (technology != r.technology) continue;
    const double as_bytes = 8 * bytes_per_second;
    if (bytes_per_second >= r.low || as_bytes < r.low || as_bytes > r.high) return std::nullopt;
    const std::string number = written.substr(0, written.size() - 3);
    return fmt::format(
        "{} {} is {}, 8x below what {} moves ({} to {} per GPU and direction); link rates of "
        "{} are quoted in bytes per second: was {}B/s meant?",
        key, written, units::format_bandwidth(bytes_per_second), r.label,
        units::format_bandwidth(r.low), units::format_bandwidth(r.high), r.label, number);
  }
  return std::nullopt;
}

}  // namespace ddpsim
