#include "sim/profile/profile_yaml.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <set>

#include "sim/scenario/enum_names.h"
#include "sim/util/atomic_file.h"
#include "sim/util/input_error.h"
#include "sim/util/input_file.h"
#include "sim/util/units.h"
#include "sim/util/yaml_document.h"

namespace ddpsim {

namespace {

constexpr int kFormatVersion = 1;

// ---------------------------------------------------------------- reading

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

RepeatStats read_stats(const Reader& r, const YAML::Node& node, const std::string& what) {
  r.expect_map(node, what, {"median", "min", "max", "repeats", "spread"});
  RepeatStats s;
  s.median =
      r.non_negative(r.require(node, "median", what), what + ".median", units::Kind::kDuration);
  s.min =
      node["min"] ? r.non_negative(node["min"], what + ".min", units::Kind::kDuration) : s.median;
  s.max =
      node["max"] ? r.non_negative(node["max"], what + ".max", units::Kind::kDuration) : s.median;
  s.repeats =
      node["repeats"] ? static_cast<int>(r.integer(node["repeats"], what + ".repeats", 1)) : 1;
  if (s.min > s.median || s.median > s.max) r.fail(node, what + ": expected min <= median <= max");
  return s;  // `spread` is derived from min/max/median; the written value is for readers only
}

KernelTrace read_trace(const Reader& r, const YAML::Node& node, const std::string& what) {
  r.expect_map(node, what, {"kernels", "kernel_seconds", "gap_seconds"});
  KernelTrace t;
  t.kernels = static_cast<int>(r.integer(r.require(node, "kernels", what), what + ".kernels", 0));
  if (node["kernel_seconds"])
    t.kernel_seconds =
        r.non_negative(node["kernel_seconds"], what + ".kernel_seconds", units::Kind::kDuration);
  if (node["gap_seconds"])
    t.gap_seconds =
        r.non_negative(node["gap_seconds"], what + ".gap_seconds", units::Kind::kDuration);
  return t;
}

LayerKind read_kind(const Reader& r, const YAML::Node& node, const std::string& what) {
  const std::string key = r.scalar(node, what);
  if (auto k = parse_layer_kind_key(key)) return *k;
  std::vector<std::string> names;
  for (int i = 0; i <= static_cast<int>(LayerKind::kLoss); ++i)
    names.push_back(layer_kind_key(static_cast<LayerKind>(i)));
  r.fail(node, what + ": unknown layer kind '" + key + "'; allowed: " + Reader::join(names));
}

Precision read_precision(const Reader& r, const YAML::Node& node, const std::string& what) {
  const std::string name = r.scalar(node, what);
  if (auto p = parse_precision_name(name)) return *p;
  r.fail(node, what + ": unknown precision '" + name + "'; allowed: " + enum_choices<Precision>());
}

AllReduceAlgorithm read_algorithm(const Reader& r, const YAML::Node& node,
                                  const std::string& what) {
  const std::string name = r.scalar(node, what);
  if (auto a = parse_algorithm_name(name)) return *a;
  r.fail(node, what + ": unknown algorithm '" + name +
                   "'; allowed: " + enum_choices<AllReduceAlgorithm>());
}

DeviceInfo read_device(const Reader& r, const YAML::Node& node) {
  r.expect_map(node, "device",
               {"name", "compute_capability", "memory_bytes", "multiprocessors", "gpus", "nodes",
                "driver", "cuda_runtime", "cublas", "cudnn", "nccl", "host", "date"});
  DeviceInfo d;
  auto text = [&](const char* key, std::string* out) {
    if (node[key]) *out = r.scalar(node[key], std::string("device.") + key);
  };
  text("name", &d.name);
  text("compute_capability", &d.compute_capability);
  text("driver", &d.driver);
  text("cuda_runtime", &d.cuda_runtime);
  text("cublas", &d.cublas);
  text("cudnn", &d.cudnn);
  text("nccl", &d.nccl);
  text("host", &d.host);
  text("date", &d.date);
  if (node["memory_bytes"])
    d.memory_bytes =
        r.non_negative(node["memory_bytes"], "device.memory_bytes", units::Kind::kBytes);
  if (node["multiprocessors"])
    d.multiprocessors =
        static_cast<int>(r.integer(node["multiprocessors"], "device.multiprocessors", 0));
  if (node["gpus"]) d.gpus = static_cast<int>(r.integer(node["gpus"], "device.gpus", 0));
  if (node["nodes"]) d.nodes = static_cast<int>(r.integer(node["nodes"], "device.nodes", 0));
  return d;
}

LayerTiming read_layer(const Reader& r, const YAML::Node& node, const std::string& what) {
  r.expect_map(node, what,
               {"name", "kind", "fwd", "bwd", "fwd_trace", "bwd_trace", "fwd_flops", "bwd_flops",
                "fwd_bytes", "bwd_bytes"});
  LayerTiming t;
  t.name = r.scalar(r.require(node, "name", what), what + ".name");
  t.kind = read_kind(r, r.require(node, "kind", what), what + ".kind");
  t.fwd = read_stats(r, r.require(node, "fwd", what), what + ".fwd");
  t.bwd = read_stats(r, r.require(node, "bwd", what), what + ".bwd");
  if (node["fwd_trace"]) t.fwd_trace = read_trace(r, node["fwd_trace"], what + ".fwd_trace");
  if (node["bwd_trace"]) t.bwd_trace = read_trace(r, node["bwd_trace"], what + ".bwd_trace");
  if (node["fwd_flops"]) t.fwd_flops = r.non_negative(node["fwd_flops"], what + ".fwd_flops");
  if (node["bwd_flops"]) t.bwd_flops = r.non_negative(node["bwd_flops"], what + ".bwd_flops");
  if (node["fwd_bytes"])
    t.fwd_bytes = r.non_negative(node["fwd_bytes"], what + ".fwd_bytes", units::Kind::kBytes);
  if (node["bwd_bytes"])
    t.bwd_bytes = r.non_negative(node["bwd_bytes"], what + ".bwd_bytes", units::Kind::kBytes);
  return t;
}

ModelRun read_run(const Reader& r, const YAML::Node& node, const std::string& what) {
  r.expect_map(
      node, what,
      {"model", "batch", "precision", "sequence_length", "layers", "skipped", "optimizer"});
  ModelRun run;
  run.model = r.scalar(r.require(node, "model", what), what + ".model");
  run.batch = static_cast<int>(r.integer(r.require(node, "batch", what), what + ".batch", 1));
  run.precision = read_precision(r, r.require(node, "precision", what), what + ".precision");
  if (node["sequence_length"])
    run.sequence_length =
        static_cast<int>(r.integer(node["sequence_length"], what + ".sequence_length", 0));
  if (YAML::Node layers = node["layers"]) {
    r.expect_seq(layers, what + ".layers");
    std::set<std::string> names;
    for (size_t i = 0; i < layers.size(); ++i) {
      LayerTiming t = read_layer(r, layers[i], what + ".layers[" + std::to_string(i) + "]");
      if (!names.insert(t.name).second)
        r.fail(layers[i], "layer '" + t.name + "' appears twice in " + what);
      run.layers.push_back(std::move(t));
    }
  }
  if (YAML::Node skipped = node["skipped"]) {
    r.expect_seq(skipped, what + ".skipped");
    for (size_t i = 0; i < skipped.size(); ++i) {
      const std::string w = what + ".skipped[" + std::to_string(i) + "]";
      r.expect_map(skipped[i], w, {"name", "kind", "reason"});
      SkippedLayer s;
      s.name = r.scalar(r.require(skipped[i], "name", w), w + ".name");
      if (skipped[i]["kind"]) s.kind = read_kind(r, skipped[i]["kind"], w + ".kind");
      if (skipped[i]["reason"]) s.reason = r.scalar(skipped[i]["reason"], w + ".reason");
      run.skipped.push_back(std::move(s));
    }
  }
  if (YAML::Node optimizer = node["optimizer"]) {
    r.expect_seq(optimizer, what + ".optimizer");
    for (size_t i = 0; i < optimizer.size(); ++i) {
      const std::string w = what + ".optimizer[" + std::to_string(i) + "]";
      r.expect_map(optimizer[i], w, {"optimizer", "params", "time"});
      OptimizerTiming o;
      const YAML::Node name = r.require(optimizer[i], "optimizer", w);
      if (auto v = enum_from_name<Optimizer>(r.scalar(name, w + ".optimizer"))) {
        o.optimizer = *v;
      } else {
        r.fail(name, w + ".optimizer: unknown optimizer '" + name.Scalar() +
                         "'; allowed: " + enum_choices<Optimizer>());
      }
      o.params =
          r.integer(r.require(optimizer[i], "params", w), w + ".params", 1, int64_t{1} << 50);
      o.time = read_stats(r, r.require(optimizer[i], "time", w), w + ".time");
      run.optimizer.push_back(o);
    }
  }
  return run;
}

CopyCeiling read_copy(const Reader& r, const YAML::Node& node, const std::string& what) {
  r.expect_map(node, what, {"bytes", "time", "bandwidth"});
  CopyCeiling c;
  c.bytes = r.positive(r.require(node, "bytes", what), what + ".bytes", units::Kind::kBytes);
  c.time = read_stats(r, r.require(node, "time", what), what + ".time");
  c.bandwidth =
      r.positive(r.require(node, "bandwidth", what), what + ".bandwidth", units::Kind::kBandwidth);
  return c;
}

DeviceCeilings read_ceilings(const Reader& r, const YAML::Node& node) {
  r.expect_map(node, "ceilings", {"gemm", "d2d", "h2d", "d2h"});
  DeviceCeilings c;
  if (YAML::Node gemm = node["gemm"]) {
    r.expect_seq(gemm, "ceilings.gemm");
    for (size_t i = 0; i < gemm.size(); ++i) {
      const std::string w = "ceilings.gemm[" + std::to_string(i) + "]";
      r.expect_map(gemm[i], w, {"precision", "m", "n", "k", "time", "flops"});
      GemmCeiling g;
      g.precision = read_precision(r, r.require(gemm[i], "precision", w), w + ".precision");
      g.m = r.integer(r.require(gemm[i], "m", w), w + ".m", 1, int64_t{1} << 40);
      g.n = r.integer(r.require(gemm[i], "n", w), w + ".n", 1, int64_t{1} << 40);
      g.k = r.integer(r.require(gemm[i], "k", w), w + ".k", 1, int64_t{1} << 40);
      g.time = read_stats(r, r.require(gemm[i], "time", w), w + ".time");
      g.flops = r.positive(r.require(gemm[i], "flops", w), w + ".flops", units::Kind::kFlopRate);
      if (c.gemm_flops(g.precision) > 0)
        r.fail(gemm[i], w + ": precision " + precision_name(g.precision) + " measured twice");
      c.gemm.push_back(g);
    }
  }
  if (node["d2d"]) c.d2d = read_copy(r, node["d2d"], "ceilings.d2d");
  if (node["h2d"]) c.h2d = read_copy(r, node["h2d"], "ceilings.h2d");
  if (node["d2h"]) c.d2h = read_copy(r, node["d2h"], "ceilings.d2h");
  return c;
}

OverlapInterference read_overlap(const Reader& r, const YAML::Node& node) {
  r.expect_map(node, "overlap",
               {"gemm_alone", "gemm_with_copy", "gemm_with_allreduce", "slowdown"});
  OverlapInterference o;
  o.gemm_alone = read_stats(r, r.require(node, "gemm_alone", "overlap"), "overlap.gemm_alone");
  if (node["gemm_with_copy"])
    o.gemm_with_copy = read_stats(r, node["gemm_with_copy"], "overlap.gemm_with_copy");
  if (node["gemm_with_allreduce"])
    o.gemm_with_allreduce =
        read_stats(r, node["gemm_with_allreduce"], "overlap.gemm_with_allreduce");
  return o;  // `slowdown` is derived; written for readers
}

// Ranges of a fit: contiguous from the first min_bytes, each t(S) = alpha + beta * S with
// beta >= 0. The first alpha is a latency (>= 0); a later alpha is the intercept of a line that
// starts at min_bytes, so it may be negative as long as the time there is positive. At every
// boundary the two lines must agree within kMaxJump: the curve is continuous (fits are exactly;
// hand-written tables may round).
constexpr double kMaxJump = 0.01;

std::vector<AlphaBetaPoint> read_fit(const Reader& r, const YAML::Node& node,
                                     const std::string& what) {
  r.expect_seq(node, what);
  if (node.size() == 0) r.fail(node, what + ": expected at least one range");
  std::vector<AlphaBetaPoint> fit;
  for (size_t i = 0; i < node.size(); ++i) {
    const std::string w = what + "[" + std::to_string(i) + "]";
    const YAML::Node row = node[i];
    r.expect_map(row, w, {"min_bytes", "max_bytes", "alpha", "beta"});
    AlphaBetaPoint p;
    p.min_bytes =
        r.non_negative(r.require(row, "min_bytes", w), w + ".min_bytes", units::Kind::kBytes);
    p.max_bytes = r.number(r.require(row, "max_bytes", w), w + ".max_bytes", units::Kind::kBytes,
                           /*allow_inf=*/true);
    const YAML::Node alpha = r.require(row, "alpha", w);
    p.alpha = fit.empty() ? r.non_negative(alpha, w + ".alpha", units::Kind::kDuration)
                          : r.number(alpha, w + ".alpha", units::Kind::kDuration);
    p.beta = r.non_negative(r.require(row, "beta", w), w + ".beta (seconds per byte)");
    if (p.beta > 1)
      r.fail(row["beta"], w + ".beta: at most 1 second per byte, got " + row["beta"].Scalar());
    if (!(p.max_bytes > p.min_bytes)) r.fail(row, w + ": expected max_bytes > min_bytes");
    if (p.alpha == 0 && p.beta == 0) r.fail(row, w + ": alpha and beta are both 0");
    if (!fit.empty() && p.min_bytes != fit.back().max_bytes)
      r.fail(row["min_bytes"], w + ".min_bytes: ranges must be contiguous: expected " +
                                   fmt::format("{}", fit.back().max_bytes) +
                                   " (the previous range's max_bytes)");
    // Every size above min_bytes must take time; a first range through the origin (alpha 0,
    // beta > 0) does, and is what `ddpsim calibrate`'s non-negative fit gives when the smallest
    // sizes are dominated by their bytes.
    const double start = p.alpha + p.beta * p.min_bytes;
    if (!(start > 0) && !(start == 0 && p.beta > 0))
      r.fail(alpha, fmt::format("{}.alpha: the time at min_bytes ({} B) must not be negative, "
                                "got {} s (alpha + beta * min_bytes)",
                                w, p.min_bytes, start));
    if (!fit.empty()) {
      const double before = fit.back().alpha + fit.back().beta * p.min_bytes;
      if (std::abs(start - before) > kMaxJump * before)
        r.fail(alpha, fmt::format("{}: the time jumps from {:.6g} s to {:.6g} s ({:+.1f} %) at "
                                  "{} B, the boundary with the previous range; ranges must "
                                  "join within 1 % (refit the table: `ddpsim calibrate` fits "
                                  "continuous curves)",
                                  w, before, start, 100 * (start / before - 1), p.min_bytes));
    }
    fit.push_back(p);
  }
  return fit;
}

CollectiveSweep read_sweep(const Reader& r, const YAML::Node& node, const std::string& what) {
  r.expect_map(
      node, what,
      {"op", "algorithm", "gpus", "nodes", "device", "backend", "source", "samples", "fit"});
  CollectiveSweep s;
  const YAML::Node op = r.require(node, "op", what);
  if (auto o = parse_collective_op_key(r.scalar(op, what + ".op"))) {
    s.op = *o;
  } else {
    r.fail(op, what + ".op: unknown collective '" + op.Scalar() +
                   "'; allowed: all_reduce, all_gather, reduce_scatter, broadcast");
  }
  if (node["algorithm"]) s.algorithm = read_algorithm(r, node["algorithm"], what + ".algorithm");
  // 0 = unknown (e.g. a log without "# Rank" lines).
  if (node["gpus"]) s.gpus = static_cast<int>(r.integer(node["gpus"], what + ".gpus", 0));
  if (node["nodes"]) s.nodes = static_cast<int>(r.integer(node["nodes"], what + ".nodes", 0));
  if (node["device"]) s.device = r.scalar(node["device"], what + ".device");
  if (node["backend"]) s.backend = r.scalar(node["backend"], what + ".backend");
  if (node["source"]) s.source = r.scalar(node["source"], what + ".source");
  if (YAML::Node samples = node["samples"]) {
    r.expect_seq(samples, what + ".samples");
    for (size_t i = 0; i < samples.size(); ++i) {
      const std::string w = what + ".samples[" + std::to_string(i) + "]";
      r.expect_map(samples[i], w, {"bytes", "seconds", "fit_error"});
      CollectiveSample c;
      c.bytes = r.positive(r.require(samples[i], "bytes", w), w + ".bytes", units::Kind::kBytes);
      c.seconds =
          r.positive(r.require(samples[i], "seconds", w), w + ".seconds", units::Kind::kDuration);
      if (samples[i]["fit_error"])
        c.fit_error = r.number(samples[i]["fit_error"], w + ".fit_error");
      s.samples.push_back(c);
    }
  }
  s.fit = read_fit(r, r.require(node, "fit", what), what + ".fit");
  return s;
}

CalibrationProfile read_document(const Reader& r, const YAML::Node& root, const std::string& path) {
  r.expect_map(root, "the profile",
               {"format", "device", "notes", "runs", "ceilings", "roofline_efficiency", "overlap",
                "collectives"});
  CalibrationProfile p;
  p.source = path;
  if (root["format"]) {
    const int64_t v = r.integer(root["format"], "format", 1);
    if (v != kFormatVersion)
      r.fail(root["format"], "format: this ddpsim reads profile format " +
                                 std::to_string(kFormatVersion) + ", got " + std::to_string(v));
  }
  if (root["device"]) p.device = read_device(r, root["device"]);
  if (YAML::Node notes = root["notes"]) {
    r.expect_seq(notes, "notes");
    for (const auto& n : notes) p.notes.push_back(r.scalar(n, "notes"));
  }
  if (YAML::Node runs = root["runs"]) {
    r.expect_seq(runs, "runs");
    for (size_t i = 0; i < runs.size(); ++i)
      p.runs.push_back(read_run(r, runs[i], "runs[" + std::to_string(i) + "]"));
  }
  if (root["ceilings"]) p.ceilings = read_ceilings(r, root["ceilings"]);
  if (YAML::Node eff = root["roofline_efficiency"]) {
    std::vector<std::string> kinds;
    for (int i = 0; i <= static_cast<int>(LayerKind::kLoss); ++i)
      kinds.push_back(layer_kind_key(static_cast<LayerKind>(i)));
    r.expect_map(eff, "roofline_efficiency", kinds);
    for (const auto& kv : eff) {
      const std::string w = "roofline_efficiency." + kv.first.Scalar();
      // Above 1 is possible: a layer may beat the measured GEMM/copy ceilings.
      const double e = r.positive(kv.second, w);
      p.roofline_efficiency[*parse_layer_kind_key(kv.first.Scalar())] = e;
    }
  }
  if (root["overlap"]) p.overlap = read_overlap(r, root["overlap"]);
  if (YAML::Node collectives = root["collectives"]) {
    r.expect_seq(collectives, "collectives");
    for (size_t i = 0; i < collectives.size(); ++i)
      p.collectives.push_back(
          read_sweep(r, collectives[i], "collectives[" + std::to_string(i) + "]"));
  }
  return p;
}

YAML::Node parse_yaml(const std::string& text, const std::string& path) {
  try {
    YAML::Node root = load_one_document(text, path, "profile or alpha-beta table");
    if (!root || root.IsNull()) throw InputError({path, 1, 1}, "empty file: expected a YAML map");
    return root;
  } catch (const YAML::ParserException& e) {
    throw yaml_syntax_error(e, text, path, "invalid YAML");
  }
}

// ---------------------------------------------------------------- writing

// Shortest text that reads back to the same double.
std::string num(double v) {
  if (std::isinf(v)) return v > 0 ? ".inf" : "-.inf";
  return fmt::format("{}", v);
}

void emit_stats(YAML::Emitter& out, const char* key, const RepeatStats& s) {
  out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "median" << YAML::Value << num(s.median);
  out << YAML::Key << "min" << YAML::Value << num(s.min);
  out << YAML::Key << "max" << YAML::Value << num(s.max);
  out << YAML::Key << "repeats" << YAML::Value << s.repeats;
  out << YAML::Key << "spread" << YAML::Value << num(s.spread());
  out << YAML::EndMap;
}

void emit_trace(YAML::Emitter& out, const char* key, const KernelTrace& t) {
  out << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap;
  out << YAML::Key << "kernels" << YAML::Value << t.kernels;
  out << YAML::Key << "kernel_seconds" << YAML::Value << num(t.kernel_seconds);
  out << YAML::Key << "gap_seconds" << YAML::Value << num(t.gap_seconds);
  out << YAML::EndMap;
}

void emit_copy(YAML::Emitter& out, const char* key, const CopyCeiling& c) {
  out << YAML::Key << key << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "bytes" << YAML::Value << num(c.bytes);
  emit_stats(out, "time", c.time);
  out << YAML::Key << "bandwidth" << YAML::Value << num(c.bandwidth);
  out << YAML::EndMap;
}

void emit_device(YAML::Emitter& out, const DeviceInfo& d) {
  out << YAML::Key << "device" << YAML::Value << YAML::BeginMap;
  auto text = [&](const char* key, const std::string& v) {
    out << YAML::Key << key << YAML::Value << YAML::DoubleQuoted << v;
  };
  text("name", d.name);
  text("compute_capability", d.compute_capability);
  out << YAML::Key << "memory_bytes" << YAML::Value << num(d.memory_bytes);
  out << YAML::Key << "multiprocessors" << YAML::Value << d.multiprocessors;
  out << YAML::Key << "gpus" << YAML::Value << d.gpus;
  if (d.nodes > 0) out << YAML::Key << "nodes" << YAML::Value << d.nodes;
  text("driver", d.driver);
  text("cuda_runtime", d.cuda_runtime);
  text("cublas", d.cublas);
  text("cudnn", d.cudnn);
  text("nccl", d.nccl);
  text("host", d.host);
  text("date", d.date);
  out << YAML::EndMap;
}

void emit_run(YAML::Emitter& out, const ModelRun& run) {
  out << YAML::BeginMap;
  out << YAML::Key << "model" << YAML::Value << run.model;
  out << YAML::Key << "batch" << YAML::Value << run.batch;
  out << YAML::Key << "precision" << YAML::Value << precision_name(run.precision);
  out << YAML::Key << "sequence_length" << YAML::Value << run.sequence_length;
  out << YAML::Key << "layers" << YAML::Value << YAML::BeginSeq;
  for (const LayerTiming& t : run.layers) {
    out << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << t.name;
    out << YAML::Key << "kind" << YAML::Value << layer_kind_key(t.kind);
    emit_stats(out, "fwd", t.fwd);
    emit_stats(out, "bwd", t.bwd);
    emit_trace(out, "fwd_trace", t.fwd_trace);
    emit_trace(out, "bwd_trace", t.bwd_trace);
    out << YAML::Key << "fwd_flops" << YAML::Value << num(t.fwd_flops);
    out << YAML::Key << "bwd_flops" << YAML::Value << num(t.bwd_flops);
    out << YAML::Key << "fwd_bytes" << YAML::Value << num(t.fwd_bytes);
    out << YAML::Key << "bwd_bytes" << YAML::Value << num(t.bwd_bytes);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "skipped" << YAML::Value << YAML::BeginSeq;
  for (const SkippedLayer& s : run.skipped) {
    out << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "name" << YAML::Value << YAML::DoubleQuoted << s.name;
    out << YAML::Key << "kind" << YAML::Value << layer_kind_key(s.kind);
    out << YAML::Key << "reason" << YAML::Value << YAML::DoubleQuoted << s.reason;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "optimizer" << YAML::Value << YAML::BeginSeq;
  for (const OptimizerTiming& o : run.optimizer) {
    out << YAML::BeginMap;
    out << YAML::Key << "optimizer" << YAML::Value << optimizer_name(o.optimizer);
    out << YAML::Key << "params" << YAML::Value << o.params;
    emit_stats(out, "time", o.time);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::EndMap;
}

void emit_sweep(YAML::Emitter& out, const CollectiveSweep& s) {
  out << YAML::BeginMap;
  out << YAML::Key << "op" << YAML::Value << collective_op_key(s.op);
  out << YAML::Key << "algorithm" << YAML::Value << algorithm_name(s.algorithm);
  out << YAML::Key << "gpus" << YAML::Value << s.gpus;
  out << YAML::Key << "nodes" << YAML::Value << s.nodes;
  out << YAML::Key << "device" << YAML::Value << YAML::DoubleQuoted << s.device;
  out << YAML::Key << "backend" << YAML::Value << YAML::DoubleQuoted << s.backend;
  out << YAML::Key << "source" << YAML::Value << YAML::DoubleQuoted << s.source;
  out << YAML::Key << "samples" << YAML::Value << YAML::BeginSeq;
  for (const CollectiveSample& c : s.samples) {
    out << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "bytes" << YAML::Value << num(c.bytes);
    out << YAML::Key << "seconds" << YAML::Value << num(c.seconds);
    out << YAML::Key << "fit_error" << YAML::Value << num(c.fit_error);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::Key << "fit" << YAML::Value << YAML::BeginSeq;
  for (const AlphaBetaPoint& p : s.fit) {
    out << YAML::Flow << YAML::BeginMap;
    out << YAML::Key << "min_bytes" << YAML::Value << num(p.min_bytes);
    out << YAML::Key << "max_bytes" << YAML::Value << num(p.max_bytes);
    out << YAML::Key << "alpha" << YAML::Value << num(p.alpha);
    out << YAML::Key << "beta" << YAML::Value << num(p.beta);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  out << YAML::EndMap;
}

}  // namespace

CalibrationProfile parse_profile(const std::string& text, const std::string& path) {
  Reader r(path);
  return read_document(r, parse_yaml(text, path), path);
}

CalibrationProfile load_profile(const std::string& path) {
  return parse_profile(read_input_file(path, "profile", "calibration profile"), path);
}

std::string profile_to_yaml(const CalibrationProfile& p) {
  YAML::Emitter out;
  // yaml-cpp writes DEL (0x7f) raw, which YAML does not allow and our reader refuses; escaping
  // everything above 0x7e keeps names taken from logs (a GPU name, a path) readable back.
  out.SetOutputCharset(YAML::EscapeNonAscii);
  out << YAML::Comment(
      "ddpsim calibration profile: SI units (seconds, bytes, bytes/s, FLOP/s).\n"
      "Format: scenarios/profiles/README.md");
  out << YAML::BeginMap;
  out << YAML::Key << "format" << YAML::Value << kFormatVersion;
  emit_device(out, p.device);
  out << YAML::Key << "notes" << YAML::Value << YAML::BeginSeq;
  for (const std::string& n : p.notes) out << YAML::DoubleQuoted << n;
  out << YAML::EndSeq;
  out << YAML::Key << "runs" << YAML::Value << YAML::BeginSeq;
  for (const ModelRun& run : p.runs) emit_run(out, run);
  out << YAML::EndSeq;

  out << YAML::Key << "ceilings" << YAML::Value << YAML::BeginMap;
  out << YAML::Key << "gemm" << YAML::Value << YAML::BeginSeq;
  for (const GemmCeiling& g : p.ceilings.gemm) {
    out << YAML::BeginMap;
    out << YAML::Key << "precision" << YAML::Value << precision_name(g.precision);
    out << YAML::Key << "m" << YAML::Value << g.m;
    out << YAML::Key << "n" << YAML::Value << g.n;
    out << YAML::Key << "k" << YAML::Value << g.k;
    emit_stats(out, "time", g.time);
    out << YAML::Key << "flops" << YAML::Value << num(g.flops);
    out << YAML::EndMap;
  }
  out << YAML::EndSeq;
  if (p.ceilings.d2d) emit_copy(out, "d2d", *p.ceilings.d2d);
  if (p.ceilings.h2d) emit_copy(out, "h2d", *p.ceilings.h2d);
  if (p.ceilings.d2h) emit_copy(out, "d2h", *p.ceilings.d2h);
  out << YAML::EndMap;

  out << YAML::Key << "roofline_efficiency" << YAML::Value << YAML::BeginMap;
  for (const auto& [kind, e] : p.roofline_efficiency)
    out << YAML::Key << layer_kind_key(kind) << YAML::Value << num(e);
  out << YAML::EndMap;

  if (p.overlap) {
    out << YAML::Key << "overlap" << YAML::Value << YAML::BeginMap;
    emit_stats(out, "gemm_alone", p.overlap->gemm_alone);
    if (p.overlap->gemm_with_copy) emit_stats(out, "gemm_with_copy", *p.overlap->gemm_with_copy);
    if (p.overlap->gemm_with_allreduce)
      emit_stats(out, "gemm_with_allreduce", *p.overlap->gemm_with_allreduce);
    out << YAML::Key << "slowdown" << YAML::Value << num(p.overlap->slowdown());
    out << YAML::EndMap;
  }

  out << YAML::Key << "collectives" << YAML::Value << YAML::BeginSeq;
  for (const CollectiveSweep& s : p.collectives) emit_sweep(out, s);
  out << YAML::EndSeq;
  out << YAML::EndMap;
  if (!out.good()) throw std::runtime_error("profile_to_yaml: " + out.GetLastError());
  return std::string(out.c_str()) + "\n";
}

void write_profile(const CalibrationProfile& profile, const std::string& path) {
  write_file_atomic(path, profile_to_yaml(profile));
}

std::map<AllReduceAlgorithm, CollectiveSweep> load_alpha_beta_sweeps(const std::string& path,
                                                                     CollectiveOp op) {
  Reader r(path);
  const YAML::Node root =
      parse_yaml(read_input_file(path, "alpha_beta_table", "alpha-beta table"), path);
  const CalibrationProfile p = read_document(r, root, path);
  // Same choice as collective_sweeps(), but a tie is an error the user must resolve.
  std::map<AllReduceAlgorithm, size_t> seen;
  for (size_t i = 0; i < p.collectives.size(); ++i) {
    const CollectiveSweep& s = p.collectives[i];
    if (s.op != op || s.gpus == 1) continue;
    auto [it, fresh] = seen.emplace(s.algorithm, i);
    if (!fresh && p.collectives[it->second].gpus == s.gpus)
      r.fail(root["collectives"][i],
             "collectives[" + std::to_string(i) + "]: a second " + collective_op_key(op) +
                 " table for algorithm " + algorithm_name(s.algorithm) +
                 " measured on the same number of GPUs (" + std::to_string(s.gpus) + "); keep one");
  }
  return collective_sweeps(p, op);
}

std::map<AllReduceAlgorithm, CollectiveSweep> load_alpha_beta_sweeps(const std::string& path) {
  auto sweeps = load_alpha_beta_sweeps(path, CollectiveOp::kAllReduce);
  if (sweeps.empty())
    throw InputError({path, 1, 1},
                     "no all_reduce table: expected `collectives:` with an entry "
                     "`op: all_reduce`, `gpus` other than 1, and its `fit:` ranges (see "
                     "scenarios/profiles/README.md)");
  return sweeps;
}

std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>> load_alpha_beta_table(
    const std::string& path) {
  std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>> tables;
  for (const auto& [algorithm, sweep] : load_alpha_beta_sweeps(path)) tables[algorithm] = sweep.fit;
  return tables;
}

}  // namespace ddpsim
