#include "sim/input/plausible_ranges.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <optional>

#include "sim/input/bits_for_bytes.h"
#include "sim/scenario/enum_names.h"

namespace ddpsim {
namespace {

using units::Kind;

constexpr double kGbps = 1e9 / 8;  // one gigabit per second, in bytes per second

// Sources: docs/scenario-reference.md, "Plausible ranges" (one row per entry, same order).
const std::vector<PlausibleRange> kRanges = {
    {"cluster.nic.bandwidth", "", Kind::kBandwidth, 1 * kGbps, 800 * kGbps, "per NIC and direction",
     "a NIC port (1000BASE-T to ConnectX-8 / 800GbE)"},
    {"cluster.nic.stream_bandwidth", "", Kind::kBandwidth, 0.1 * kGbps, 800 * kGbps,
     "per TCP stream", "one TCP stream (at most its NIC port)"},
    {"cluster.nic.latency", "", Kind::kDuration, 0, 1e-3, "per message",
     "a network hop inside a data centre (InfiniBand ~1 us, RoCE and TCP tens of us)"},
    {"cluster.nic.message_cost", "", Kind::kDuration, 0, 1e-3, "per message",
     "a socket message's CPU cost"},
    {"cluster.intra_node.bandwidth", "nvswitch", Kind::kBandwidth, 14e9, 900e9,
     "per GPU and direction", "NVLink (1.0 link to NVLink 5: B200's 1.8 TB/s is both directions)"},
    {"cluster.intra_node.bandwidth", "nvlink-mesh", Kind::kBandwidth, 14e9, 900e9,
     "per GPU and direction", "NVLink (1.0 link to NVLink 5: B200's 1.8 TB/s is both directions)"},
    {"cluster.intra_node.bandwidth", "pcie", Kind::kBandwidth, 0.98e9, 128e9,
     "per GPU and direction", "PCIe (Gen3 x1 to Gen6 x16)"},
    {"cluster.intra_node.latency", "", Kind::kDuration, 0, 100e-6, "per message",
     "a GPU-to-GPU hop inside a node (NCCL's tuning: a few us)"},
    {"cluster.pcie", "", Kind::kBandwidth, 0.98e9, 128e9, "per GPU and direction",
     "PCIe (Gen3 x1 to Gen6 x16)"},
    {"cluster.pcie_switch.uplink", "", Kind::kBandwidth, 0.98e9, 128e9, "per direction",
     "PCIe (Gen3 x1 to Gen6 x16)"},
    {"cluster.gpu.hbm_bandwidth", "", Kind::kBandwidth, 100e9, 8e12, "per GPU",
     "GPU memory (GDDR5 cards to B200's 8 TB/s HBM3e)"},
    {"cluster.gpu.fp32", "", Kind::kFlopRate, 1e12, 100e12, "per GPU",
     "FP32 (K80 to B200's 80 TFLOPS)"},
    {"cluster.gpu.tf32", "", Kind::kFlopRate, 1e12, 2.5e15, "per GPU",
     "tensor cores (dense to sparse, V100 to GB200)"},
    {"cluster.gpu.fp16", "", Kind::kFlopRate, 1e12, 5e15, "per GPU",
     "tensor cores (dense to sparse, V100 to GB200)"},
    {"cluster.gpu.bf16", "", Kind::kFlopRate, 1e12, 5e15, "per GPU",
     "tensor cores (dense to sparse, A100 to GB200)"},
    {"cluster.gpu.fp8", "", Kind::kFlopRate, 1e12, 10e15, "per GPU",
     "FP8 tensor cores (dense to sparse, H100 to GB200)"},
    {"cluster.host.bandwidth", "", Kind::kBandwidth, 10e9, 1e12, "per CPU",
     "host memory (dual-channel DDR4 to 12-channel DDR5 / Grace LPDDR5X)"},
    {"cluster.host.socket_link", "", Kind::kBandwidth, 5e9, 900e9, "per direction",
     "a socket link (UPI and xGMI to Grace's NVLink-C2C)"},
    {"data.storage.bandwidth", "", Kind::kBandwidth, 10e6, 20e12, "",
     "storage (one disk to the largest parallel file systems)"},
    {"data.storage.client_bandwidth", "", Kind::kBandwidth, 10e6, 800e9, "per node",
     "a storage client (at most the node's NICs)"},
    {"data.decode.gpu_time", "", Kind::kDuration, 1e-6, 1, "per sample",
     "GPU decode of one sample"},
    {"sync.ps.server_bandwidth", "", Kind::kBandwidth, 1 * kGbps, 800 * kGbps, "per server",
     "a NIC port (1000BASE-T to ConnectX-8 / 800GbE)"},
    {"sync.ps.server_memory_bandwidth", "", Kind::kBandwidth, 10e9, 1e12, "per server",
     "host memory (dual-channel DDR4 to 12-channel DDR5 / Grace LPDDR5X)"},
    {"sync.fusion.cycle_time", "", Kind::kDuration, 0, 1, "", "a fusion cycle (Horovod: 1-5 ms)"},
    {"sync.fusion.coordination", "", Kind::kDuration, 0, 1, "", "a coordination round"},
};

std::string trimmed(const std::string& text) {
  const size_t first = text.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return text.substr(first, text.find_last_not_of(" \t") - first + 1);
}

// "3,200 Gb/s": bit rates as NIC datasheets quote them.
std::string bits_text(double bytes_per_second) {
  const double bits = 8 * bytes_per_second;
  if (bits >= 1e12 * 10) return units::format_rate(bits / 1e12) + " Tb/s";
  if (bits >= 1e9) return units::format_rate(bits / 1e9) + " Gb/s";
  return units::format_rate(bits / 1e6) + " Mb/s";
}

std::string both(double value, Kind kind) {
  switch (kind) {
    case Kind::kBandwidth:
      return units::format_bandwidth(value) + " = " + bits_text(value);
    case Kind::kDuration:
      return units::format_duration(value);
    case Kind::kFlopRate:
      return units::format_flops(value);
    case Kind::kBytes:
      return units::format_bytes(value);
  }
  return "";
}

// The written number and unit: "400 GB/s" -> {"400", "GB/s"}.
std::pair<std::string, std::string> split(const std::string& text) {
  size_t i = 0;
  while (i < text.size() && (std::isdigit(static_cast<unsigned char>(text[i])) || text[i] == '.' ||
                             text[i] == 'e' || text[i] == 'E' || text[i] == '+' || text[i] == '-'))
    ++i;
  return {text.substr(0, i), trimmed(text.substr(i))};
}

bool in_bits(const std::string& unit) {
  return unit.find("bps") != std::string::npos || unit.find("b/s") != std::string::npos ||
         unit.find("bit/s") != std::string::npos;
}

// The SI prefix letter of a rate unit ("GB/s" -> "G", "Gbps" -> "G", "B/s" -> "").
std::string prefix_of(const std::string& unit) {
  if (!unit.empty() && std::string("KkMGTP").find(unit[0]) != std::string::npos)
    return std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(unit[0]))));
  return "";
}

// The slip a value outside [low, high] most likely is, as the text to write instead.
std::string likely_slip(const PlausibleRange& r, const std::string& text, double value) {
  const auto [number, unit] = split(text);
  auto inside = [&](double v) { return v >= r.low && v <= r.high; };
  // NICs are quoted in bits per second, every other link and memory in bytes.
  const std::string key = r.key;
  const bool quoted_in_bits =
      key.find(".nic.") != std::string::npos || key.find("server_bandwidth") != std::string::npos;
  if (r.kind == Kind::kBandwidth) {
    if (quoted_in_bits && !in_bits(unit) && value > r.high && inside(value / 8))
      return fmt::format("did you mean {}{}bps (bits per second)?", number, prefix_of(unit));
    if (!quoted_in_bits && in_bits(unit) && value < r.low && inside(value * 8))
      return fmt::format("did you mean {}{}B/s (bytes per second)?", number, prefix_of(unit));
    if (value > r.high && inside(value / 2))
      return fmt::format("if {} counts both directions, write one: {}", text,
                         units::format_bandwidth(value / 2));
  }
  if (r.kind == Kind::kDuration) {
    static const char* kSteps[] = {"ns", "us", "ms", "s"};
    for (int i = 1; i < 4; ++i) {
      if (unit == kSteps[i] && value > r.high && inside(value / 1000))
        return fmt::format("did you mean {}{}?", number, kSteps[i - 1]);
      if (unit == kSteps[i - 1] && value < r.low && inside(value * 1000))
        return fmt::format("did you mean {}{}?", number, kSteps[i]);
    }
  }
  if (value > r.high && inside(value / 1000)) return "is the unit's prefix 1000x too large?";
  if (value < r.low && inside(value * 1000)) return "is the unit's prefix 1000x too small?";
  return "taken as written";
}

// The node at a dotted path, read without inserting (a const node's operator[] never does).
std::optional<YAML::Node> at_path(const YAML::Node& root, const std::string& path) {
  const size_t dot = path.find('.');
  const std::string head = path.substr(0, dot);
  if (!root.IsMap()) return std::nullopt;
  const YAML::Node& const_root = root;
  const YAML::Node child = const_root[head];
  if (!child) return std::nullopt;
  if (dot == std::string::npos) return child;
  return at_path(child, path.substr(dot + 1));
}

}  // namespace

const std::vector<PlausibleRange>& plausible_ranges() { return kRanges; }

std::string implausible_value_warning(const std::string& key, const std::string& text, double value,
                                      const std::string& technology, double cpus) {
  for (PlausibleRange r : kRanges) {
    if (key != r.key || (*r.technology != '\0' && technology != r.technology)) continue;
    if (key == "cluster.host.bandwidth") r.high *= std::max(1.0, cpus);
    if (value == 0 && r.low > 0) return "";  // 0 means "none" or "the default" where allowed
    if (value >= r.low && value <= r.high) return "";
    const std::string written = trimmed(text);
    const std::string per = *r.per != '\0' ? std::string(" ") + r.per : std::string();
    const bool above = value > r.high;
    return fmt::format("{} {} is {}{}, {} the plausible {} to {} for {}; {}", key, written,
                       both(value, r.kind), per, above ? "above" : "below", both(r.low, r.kind),
                       both(r.high, r.kind), r.what, likely_slip(r, written, value));
  }
  return "";
}

void note_implausible_values(const YAML::Node& root, Scenario* scenario) {
  ClusterSpec& c = scenario->cluster;
  const std::string technology = enum_name(c.intra_node.kind);
  for (const PlausibleRange& r : kRanges) {
    if (*r.technology != '\0' && technology != r.technology) continue;
    const std::optional<YAML::Node> node = at_path(root, r.key);
    if (!node || !node->IsScalar()) continue;
    const std::string key = r.key;
    const std::string text = node->Scalar();
    const units::Parsed parsed = units::parse(text, r.kind);
    if (!parsed.value) continue;  // the section's parser reported it (or it is a bare number)
    // A link already reported as bits for bytes needs no second line.
    if ((key == "cluster.pcie" || key == "cluster.intra_node.bandwidth") &&
        bits_for_bytes_warning(key, text, *parsed.value,
                               key == "cluster.pcie" ? std::string("pcie") : technology))
      continue;
    // One ddpsim socket may stand for several CPUs (GB200 NVL72: 18 Grace per half rack), each
    // serving at least two GPUs: host memory's range is per CPU.
    const double gpus_per_socket = static_cast<double>(c.gpus_per_node) / c.host.sockets;
    std::string warning =
        implausible_value_warning(key, text, *parsed.value, technology, gpus_per_socket / 2);
    if (!warning.empty()) c.input_warnings.push_back(std::move(warning));
  }
}

}  // namespace ddpsim
