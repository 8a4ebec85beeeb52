// Readers of a profile's `collectives:` entries (one measured sweep each, with its alpha-beta
// fit ranges) and of the alpha-beta table behind `sync.alpha_beta`, which is a file in the same
// format: fits must be contiguous, continuous within 1 % and take time at every size.
#include <fmt/format.h>

#include <map>

#include "sim/measurements/profile_node_reader.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/scenario/enum_names.h"
#include "sim/text/input_file.h"

namespace ddpsim {

namespace profile_yaml {

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

}  // namespace profile_yaml

using profile_yaml::parse_yaml;
using profile_yaml::read_document;
using profile_yaml::Reader;

namespace {

// Same choice as collective_sweeps(), but a tie is an error the user must resolve.
std::map<AllReduceAlgorithm, CollectiveSweep> unambiguous_sweeps(const Reader& r,
                                                                 const YAML::Node& root,
                                                                 const CalibrationProfile& p,
                                                                 CollectiveOp op) {
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

}  // namespace

AlphaBetaFile load_alpha_beta_file(const std::string& path) {
  Reader r(path);
  const YAML::Node root =
      parse_yaml(read_input_file(path, "alpha_beta_table", "alpha-beta table"), path);
  const CalibrationProfile p = read_document(r, root, path);
  AlphaBetaFile file;
  file.source = path;
  // all_reduce first: a file without it is refused for that before any tie of another op.
  for (CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kAllGather,
                          CollectiveOp::kReduceScatter, CollectiveOp::kBroadcast}) {
    auto sweeps = unambiguous_sweeps(r, root, p, op);
    if (op == CollectiveOp::kAllReduce && sweeps.empty())
      throw InputError({path, 1, 1},
                       "no all_reduce table: expected `collectives:` with an entry "
                       "`op: all_reduce`, `gpus` other than 1, and its `fit:` ranges (see "
                       "scenarios/profiles/README.md)");
    if (!sweeps.empty()) file.sweeps[op] = std::move(sweeps);
  }
  return file;
}

std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>> load_alpha_beta_table(
    const std::string& path) {
  const AlphaBetaFile file =
      load_alpha_beta_file(path);  // (a temporary would not outlive the loop)
  std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>> tables;
  for (const auto& [algorithm, sweep] : file.sweeps.at(CollectiveOp::kAllReduce))
    tables[algorithm] = sweep.fit;
  return tables;
}

}  // namespace ddpsim
