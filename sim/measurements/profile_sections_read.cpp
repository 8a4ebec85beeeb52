// Readers of a calibration profile's sections other than its collectives: repeat statistics,
// kernel traces, the device block, model runs (layers, skipped layers, optimizer timings), the
// device ceilings (GEMM, copies) and the overlap interference. Each checks every key and value
// as profile_node_reader.h describes.
#include <fmt/format.h>

#include "sim/measurements/profile_node_reader.h"
#include "sim/scenario/enum_names.h"

namespace ddpsim::profile_yaml {

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

}  // namespace ddpsim::profile_yaml
