#include "sim/measurements/nccl_tests_format.h"

#include <fmt/format.h>

#include <cctype>
#include <cmath>

#include "sim/measurements/nccl_tests_import.h"

namespace ddpsim {

long long nccl_tests_count(CollectiveOp op, double bytes, int ranks, int element_bytes) {
  const double elements = bytes / element_bytes;
  const bool per_rank = op == CollectiveOp::kAllGather || op == CollectiveOp::kReduceScatter;
  return static_cast<long long>(per_rank && ranks > 0 ? elements / ranks : elements);
}

const char* nccl_tests_redop(CollectiveOp op) {
  return op == CollectiveOp::kAllReduce || op == CollectiveOp::kReduceScatter ? "sum" : "none";
}

int nccl_tests_root(CollectiveOp op) { return op == CollectiveOp::kBroadcast ? 0 : -1; }

std::string nccl_tests_time(double seconds) {
  const double us = seconds * 1e6;
  if (us >= 10000.0) return fmt::format("{:7.0f}", us);
  if (us >= 100.0) return fmt::format("{:7.1f}", us);
  return fmt::format("{:7.2f}", us);
}

std::string format_nccl_tests_table(CollectiveOp op, int ranks,
                                    const std::vector<CollectiveSample>& samples) {
  std::string out =
      "#                                                              out-of-place\n"
      "#       size         count      type   redop    root     time   algbw   busbw #wrong\n"
      "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n";
  const double factor = bus_bandwidth_factor(op, ranks);
  double busbw_sum = 0;
  for (const CollectiveSample& s : samples) {
    const double algbw = s.seconds > 0 ? s.bytes / s.seconds / 1e9 : 0;
    busbw_sum += algbw * factor;
    out += fmt::format("{:12d}  {:12d}  {:>8}  {:>6}  {:6d}  {:>7}  {:6.2f}  {:6.2f}  {:>5}\n",
                       static_cast<long long>(s.bytes), nccl_tests_count(op, s.bytes, ranks),
                       "float", nccl_tests_redop(op), nccl_tests_root(op),
                       nccl_tests_time(s.seconds), algbw, algbw * factor, "N/A");
  }
  out += fmt::format("# Avg bus bandwidth    : {:g} \n#\n",
                     samples.empty() ? 0.0 : busbw_sum / static_cast<double>(samples.size()));
  return out;
}

std::optional<double> parse_nccl_tests_size(const std::string& text) {
  if (text.empty()) return std::nullopt;
  double scale = 1;
  std::string digits = text;
  switch (std::toupper(static_cast<unsigned char>(text.back()))) {
    case 'K':
      scale = 1024.0;
      break;
    case 'M':
      scale = 1024.0 * 1024;
      break;
    case 'G':
      scale = 1024.0 * 1024 * 1024;
      break;
    default:
      break;
  }
  if (scale > 1) digits.pop_back();
  if (digits.empty() || digits.size() > 15) return std::nullopt;
  for (char c : digits)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  return std::stod(digits) * scale;
}

}  // namespace ddpsim
