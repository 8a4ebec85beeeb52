// The checked reading of one calibration-profile YAML node (profile_yaml.h is the public side):
// a Reader turns a node into a typed value or throws InputError at the node's file:line:column
// naming what was expected; the section readers below build the profile's parts from their
// nodes. Internal to sim/measurements/: profile_sections_read.cpp (device, runs, ceilings,
// overlap), profile_collectives_read.cpp (collective sweeps and their fits, the alpha-beta table)
// and profile_yaml_read.cpp (the document) use it.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/measurements/calibration_profile.h"
#include "sim/text/input_error.h"
#include "sim/text/units.h"

namespace ddpsim::profile_yaml {

constexpr int kFormatVersion = 1;

class Reader {
 public:
  explicit Reader(std::string file) : file_(std::move(file)) {}

  SourceLocation at(const YAML::Node& node) const {
    const YAML::Mark m = node.Mark();
    if (m.is_null()) return {file_, 0, 0};
    return {file_, m.line + 1, m.column + 1};
  }

  [[noreturn]] void fail(const YAML::Node& node, const std::string& message) const {
    throw InputError(at(node), message);
  }

  // Checks `node` is a map whose keys are all in `allowed`, with no key twice.
  void expect_map(const YAML::Node& node, const std::string& what,
                  const std::vector<std::string>& allowed) const {
    if (!node.IsMap()) fail(node, what + ": expected a map with keys " + join(allowed));
    std::set<std::string> seen;
    for (const auto& kv : node) {
      const std::string key = kv.first.Scalar();
      bool known = false;
      for (const std::string& a : allowed) known = known || a == key;
      if (!known)
        fail(kv.first, "unknown key '" + key + "' in " + what + "; allowed: " + join(allowed));
      if (!seen.insert(key).second) fail(kv.first, "key '" + key + "' given twice in " + what);
    }
  }

  void expect_seq(const YAML::Node& node, const std::string& what) const {
    if (!node.IsSequence()) fail(node, what + ": expected a list");
  }

  YAML::Node require(const YAML::Node& map, const std::string& key, const std::string& what) const {
    YAML::Node v = map[key];
    if (!v) fail(map, what + ": missing key '" + key + "'");
    return v;
  }

  std::string scalar(const YAML::Node& node, const std::string& what) const {
    if (!node.IsScalar()) fail(node, what + ": expected a single value");
    return node.Scalar();
  }

  // Physically plausible upper bounds, so sums and scalings of profile values stay finite:
  // a measured time above 11 days or a size above an exabyte is a typo, not a measurement.
  double within_cap(const YAML::Node& node, const std::string& what,
                    std::optional<units::Kind> kind, double v) const {
    constexpr double kMaxSeconds = 1e6, kMaxBytes = 1e18;
    if (kind == units::Kind::kDuration && v > kMaxSeconds)
      fail(node, what + ": at most 1e6 seconds, got " + scalar(node, what));
    if (kind == units::Kind::kBytes && v > kMaxBytes)
      fail(node, what + ": at most 1e18 bytes, got " + scalar(node, what));
    return v;
  }

  // A plain number (SI base unit), or with `kind` a quantity with a unit ("64KiB", "12us").
  double number(const YAML::Node& node, const std::string& what,
                std::optional<units::Kind> kind = std::nullopt, bool allow_inf = false) const {
    const std::string text = scalar(node, what);
    if (allow_inf && (text == ".inf" || text == ".Inf" || text == ".INF" || text == "inf"))
      return std::numeric_limits<double>::infinity();
    const char* begin = text.c_str();
    char* end = nullptr;
    const double plain = std::strtod(begin, &end);
    if (!text.empty() && end == begin + text.size() && std::isfinite(plain)) return plain;
    if (kind) {
      units::Parsed parsed = units::parse(text, *kind, /*allow_bare=*/true);
      if (parsed.value) return *parsed.value;
      fail(node, what + ": " + parsed.error);
    }
    fail(node, what + ": expected a finite number, got '" + text + "'");
  }

  double non_negative(const YAML::Node& node, const std::string& what,
                      std::optional<units::Kind> kind = std::nullopt) const {
    const double v = number(node, what, kind);
    if (v < 0) fail(node, what + ": must be >= 0, got " + scalar(node, what));
    return within_cap(node, what, kind, v);
  }

  double positive(const YAML::Node& node, const std::string& what,
                  std::optional<units::Kind> kind = std::nullopt) const {
    const double v = number(node, what, kind);
    if (!(v > 0)) fail(node, what + ": must be > 0, got " + scalar(node, what));
    return within_cap(node, what, kind, v);
  }

  // Ints stored in `int` fields default to its range; strtoll saturates silently otherwise.
  int64_t integer(const YAML::Node& node, const std::string& what, int64_t min_value,
                  int64_t max_value = std::numeric_limits<int32_t>::max()) const {
    const std::string text = scalar(node, what);
    const char* begin = text.c_str();
    char* end = nullptr;
    errno = 0;
    const long long v = std::strtoll(begin, &end, 10);
    if (text.empty() || end != begin + text.size())
      fail(node, what + ": expected an integer, got '" + text + "'");
    if (errno == ERANGE || v > max_value)
      fail(node, what + ": must be <= " + std::to_string(max_value) + ", got " + text);
    if (v < min_value)
      fail(node, what + ": must be >= " + std::to_string(min_value) + ", got " + text);
    return v;
  }

  static std::string join(const std::vector<std::string>& items) {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
    return out;
  }

 private:
  std::string file_;
};

// Section readers; `what` is the key path named in messages ("runs[0].layers[3]").
RepeatStats read_stats(const Reader& r, const YAML::Node& node, const std::string& what);
Precision read_precision(const Reader& r, const YAML::Node& node, const std::string& what);
AllReduceAlgorithm read_algorithm(const Reader& r, const YAML::Node& node, const std::string& what);
LayerKind read_kind(const Reader& r, const YAML::Node& node, const std::string& what);
DeviceInfo read_device(const Reader& r, const YAML::Node& node);
ModelRun read_run(const Reader& r, const YAML::Node& node, const std::string& what);
DeviceCeilings read_ceilings(const Reader& r, const YAML::Node& node);
OverlapInterference read_overlap(const Reader& r, const YAML::Node& node);
CollectiveSweep read_sweep(const Reader& r, const YAML::Node& node, const std::string& what);

// The whole document (a profile, or an alpha-beta table in its format).
CalibrationProfile read_document(const Reader& r, const YAML::Node& root, const std::string& path);
// One YAML document of `text`; InputError when it is not YAML, empty, or more than one document.
YAML::Node parse_yaml(const std::string& text, const std::string& path);

}  // namespace ddpsim::profile_yaml
