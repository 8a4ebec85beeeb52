#include "sim/text/units.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <vector>

namespace ddpsim::units {
namespace {

struct Unit {
  const char* suffix;
  double factor;  // to the base unit (bytes, bytes/s, seconds, FLOP/s)
};

// Order matters only for error messages and formatting: it is the order users read them in.
const std::vector<Unit>& units_of(Kind kind) {
  static const std::vector<Unit> bytes = {
      {"B", 1},           {"KB", 1e3},           {"MB", 1e6},
      {"GB", 1e9},        {"TB", 1e12},          {"KiB", 1024.0},
      {"MiB", 1048576.0}, {"GiB", 1073741824.0}, {"TiB", 1099511627776.0}};
  static const std::vector<Unit> bandwidth = {
      {"B/s", 1},        {"KB/s", 1e3},     {"MB/s", 1e6},        {"GB/s", 1e9},
      {"TB/s", 1e12},    {"KiB/s", 1024.0}, {"MiB/s", 1048576.0}, {"GiB/s", 1073741824.0},
      {"bps", 1.0 / 8},  {"Kbps", 1e3 / 8}, {"Mbps", 1e6 / 8},    {"Gbps", 1e9 / 8},
      {"Tbps", 1e12 / 8}};
  static const std::vector<Unit> duration = {
      {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"min", 60}};
  static const std::vector<Unit> flop_rate = {
      {"FLOPS", 1}, {"GFLOPS", 1e9}, {"TFLOPS", 1e12}, {"PFLOPS", 1e15}};
  switch (kind) {
    case Kind::kBytes:
      return bytes;
    case Kind::kBandwidth:
      return bandwidth;
    case Kind::kDuration:
      return duration;
    case Kind::kFlopRate:
      return flop_rate;
  }
  return bytes;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::kBytes:
      return "a size";
    case Kind::kBandwidth:
      return "a bandwidth";
    case Kind::kDuration:
      return "a duration";
    case Kind::kFlopRate:
      return "a compute rate";
  }
  return "a quantity";
}

const char* example(Kind kind) {
  switch (kind) {
    case Kind::kBytes:
      return "'25MiB'";
    case Kind::kBandwidth:
      return "'200Gbps' or '25GB/s'";
    case Kind::kDuration:
      return "'2us'";
    case Kind::kFlopRate:
      return "'312TFLOPS'";
  }
  return "";
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  }
  return true;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return s;
}

// Length of the leading decimal number: [+-]digits[.digits][(e|E)[+-]digits], or 0.
size_t number_length(std::string_view s) {
  size_t i = 0;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
  size_t digits = 0;
  while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && std::isdigit(static_cast<unsigned char>(s[i]))) ++i, ++digits;
  }
  if (digits == 0) return 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    size_t j = i + 1;
    if (j < s.size() && (s[j] == '+' || s[j] == '-')) ++j;
    size_t exp_digits = 0;
    while (j < s.size() && std::isdigit(static_cast<unsigned char>(s[j]))) ++j, ++exp_digits;
    if (exp_digits > 0) i = j;
  }
  return i;
}

bool looks_non_finite(std::string_view s) {
  if (!s.empty() && (s.front() == '+' || s.front() == '-')) s.remove_prefix(1);
  if (!s.empty() && s.front() == '.') s.remove_prefix(1);  // YAML's .inf / .nan
  return s.size() >= 3 && (equals_ignoring_case(s.substr(0, 3), "inf") ||
                           equals_ignoring_case(s.substr(0, 3), "nan"));
}

Parsed failure(std::string message) {
  Parsed p;
  p.error = std::move(message);
  return p;
}

std::string allowed_sentence(Kind kind) {
  return std::string(kind_name(kind)) + " takes one of: " + allowed_units(kind);
}

// Other spellings of the bit rates, as datasheets and the README's prose write them ("400 Gb/s",
// "100 Gbit/s"); they parse as the unit they spell, and error messages list only the canonical one.
const std::vector<Unit>& aliases_of(Kind kind) {
  static const std::vector<Unit> none;
  static const std::vector<Unit> bandwidth = {
      {"b/s", 1.0 / 8},    {"Kb/s", 1e3 / 8},    {"Mb/s", 1e6 / 8},   {"Gb/s", 1e9 / 8},
      {"Tb/s", 1e12 / 8},  {"bit/s", 1.0 / 8},   {"Kbit/s", 1e3 / 8}, {"Mbit/s", 1e6 / 8},
      {"Gbit/s", 1e9 / 8}, {"Tbit/s", 1e12 / 8}, {"kb/s", 1e3 / 8},   {"kbit/s", 1e3 / 8}};
  return kind == Kind::kBandwidth ? bandwidth : none;
}

// A unit folded to what a slip keeps: case, '/', "bit" for "b" and "ps" for "/s" are lost, so
// "GBps", "gb/s", "Gbps" and "GB/s" all fold to "gbs".
std::string folded(std::string_view unit) {
  std::string out;
  for (char c : unit) {
    if (c != '/') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  for (size_t at; (at = out.find("bit")) != std::string::npos;) out.replace(at, 3, "b");
  if (out.size() >= 3 && out.compare(out.size() - 2, 2, "ps") == 0)
    out.replace(out.size() - 2, 2, "s");
  return out;
}

// What a bandwidth unit means in words, so a hint between bits and bytes is never a guess:
// "GB/s" -> "gigabytes per second", "Gbps" -> "gigabits per second".
std::string meaning(const Unit& u, Kind kind) {
  if (kind != Kind::kBandwidth) return "";
  const std::string s = u.suffix;
  const bool bits = s.find("bps") != std::string::npos;
  const bool binary = s.find("iB") != std::string::npos;
  std::string prefix;
  switch (s.empty() ? 'B' : s[0]) {
    case 'K':
      prefix = binary ? "kibi" : "kilo";
      break;
    case 'M':
      prefix = binary ? "mebi" : "mega";
      break;
    case 'G':
      prefix = binary ? "gibi" : "giga";
      break;
    case 'T':
      prefix = binary ? "tebi" : "tera";
      break;
    default:
      break;
  }
  return " (" + prefix + (bits ? "bits" : "bytes") + " per second)";
}

// Explains why `suffix` is not a unit of `kind`, with every near unit the user may have meant and
// what each means: `50GBps` may be 50 GB/s (bytes) or 50 Gbps (bits), 8x apart.
std::string diagnose_unit(std::string_view text, std::string_view suffix, Kind kind) {
  std::string head = fmt::format("unknown unit '{}' in '{}'", suffix, text);
  std::vector<const Unit*> near;
  for (const Unit& u : units_of(kind)) {
    if (folded(suffix) == folded(u.suffix)) near.push_back(&u);
  }
  if (!near.empty()) {
    std::string options;
    for (size_t i = 0; i < near.size(); ++i) {
      if (i > 0) options += i + 1 == near.size() ? " or " : ", ";
      options += fmt::format("'{}'{}", near[i]->suffix, meaning(*near[i], kind));
    }
    return fmt::format("{} (units are case-sensitive: did you mean {}?); {}", head, options,
                       allowed_sentence(kind));
  }
  for (Kind other : {Kind::kBytes, Kind::kBandwidth, Kind::kDuration, Kind::kFlopRate}) {
    if (other == kind) continue;
    for (const Unit& u : units_of(other)) {
      if (suffix == u.suffix) {
        return fmt::format("'{}' is {} unit, but {} is expected here; {}", suffix, kind_name(other),
                           kind_name(kind), allowed_sentence(kind));
      }
    }
  }
  return fmt::format("{}; {}", head, allowed_sentence(kind));
}

// Three significant digits: "1.23", "25.0", "200".
std::string three_digits(double v) {
  double a = std::fabs(v);
  int decimals = a < 10 ? 2 : (a < 100 ? 1 : 0);
  return fmt::format("{:.{}f}", v, decimals);
}

// Picks the largest unit whose value is >= 1 from `candidates` (ascending factors).
std::string format_with(double value, const std::vector<Unit>& candidates) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  double a = std::fabs(value);
  const Unit* best = &candidates.front();
  for (const Unit& u : candidates) {
    if (a >= u.factor) best = &u;
  }
  if (value == 0) best = &candidates.front();
  return three_digits(value / best->factor) + " " + best->suffix;
}

}  // namespace

Parsed parse(std::string_view text, Kind kind, bool allow_bare) {
  std::string_view s = trim(text);
  if (s.empty()) {
    return failure(
        fmt::format("empty value: expected {} such as {}", kind_name(kind), example(kind)));
  }
  if (looks_non_finite(s)) {
    return failure(fmt::format("'{}' is not a finite number: expected {} such as {}", text,
                               kind_name(kind), example(kind)));
  }
  size_t n = number_length(s);
  if (n == 0) {
    return failure(fmt::format("'{}' does not start with a number: expected {} such as {}", text,
                               kind_name(kind), example(kind)));
  }
  std::string_view number = s.substr(0, n);
  if (number.front() == '+') number.remove_prefix(1);
  double value = 0;
  auto [end, ec] = std::from_chars(number.data(), number.data() + number.size(), value);
  if (ec != std::errc() || end != number.data() + number.size() || !std::isfinite(value)) {
    return failure(fmt::format("'{}' is out of range", text));
  }
  if (value < 0) {
    return failure(
        fmt::format("'{}' is negative, but {} cannot be negative", text, kind_name(kind)));
  }
  if (value == 0) value = 0;  // "-0" is zero
  std::string_view suffix = trim(s.substr(n));
  if (suffix.empty()) {
    if (allow_bare) return Parsed{value, {}};
    return failure(fmt::format("missing unit in '{}': expected {} such as {}; {}", text,
                               kind_name(kind), example(kind), allowed_sentence(kind)));
  }
  for (const auto* list : {&units_of(kind), &aliases_of(kind)}) {
    for (const Unit& u : *list) {
      if (suffix == u.suffix) {
        double result = value * u.factor;
        if (!std::isfinite(result)) return failure(fmt::format("'{}' is out of range", text));
        return Parsed{result, {}};
      }
    }
  }
  return failure(diagnose_unit(text, suffix, kind));
}

std::string allowed_units(Kind kind) {
  std::string out;
  for (const Unit& u : units_of(kind)) {
    if (!out.empty()) out += ", ";
    out += u.suffix;
  }
  return out;
}

std::string format_bytes(double bytes) {
  // One unit family for every size ddpsim prints (memory, buckets, bytes moved, samples), never
  // chosen by divisibility: a size and its neighbour in a table must compare at a glance.
  static const std::vector<Unit> binary = {{"B", 1},
                                           {"KiB", 1024.0},
                                           {"MiB", 1048576.0},
                                           {"GiB", 1073741824.0},
                                           {"TiB", 1099511627776.0}};
  return format_with(bytes, binary);
}

std::string format_bandwidth(double bytes_per_second) {
  static const std::vector<Unit> decimal = {
      {"B/s", 1}, {"KB/s", 1e3}, {"MB/s", 1e6}, {"GB/s", 1e9}, {"TB/s", 1e12}};
  return format_with(bytes_per_second, decimal);
}

std::string format_duration(double seconds) {
  static const std::vector<Unit> scale = {
      {"ns", 1e-9}, {"us", 1e-6}, {"ms", 1e-3}, {"s", 1}, {"min", 60}};
  return format_with(seconds, scale);
}

std::string format_flops(double flop_per_second) {
  static const std::vector<Unit> scale = {
      {"FLOPS", 1}, {"GFLOPS", 1e9}, {"TFLOPS", 1e12}, {"PFLOPS", 1e15}};
  return format_with(flop_per_second, scale);
}

std::string format_rate(double per_second) {
  if (std::isfinite(per_second) && per_second != 0 && std::abs(per_second) < 99.95) {
    // fixed notation with 2 - floor(log10 |v|) decimals: 12.3, 1.23, 0.123, 0.0123
    const int magnitude = static_cast<int>(std::floor(std::log10(std::abs(per_second))));
    const int decimals = std::max(0, 2 - magnitude);
    std::string s = fmt::format("{:.{}f}", per_second, decimals);
    // 9.995 rounds to "10.00": keep three significant digits
    if (s.find('.') != std::string::npos && std::abs(std::stod(s)) >= std::pow(10, magnitude + 1))
      s = fmt::format("{:.{}f}", per_second, std::max(0, decimals - 1));
    return s;
  }
  std::string s = fmt::format("{:.0f}", per_second);
  const int first = s[0] == '-' ? 1 : 0;
  for (int i = static_cast<int>(s.size()) - 3; i > first; i -= 3) s.insert(i, ",");
  return s;
}

}  // namespace ddpsim::units
