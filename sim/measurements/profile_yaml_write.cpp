// Writing a calibration profile as YAML: SI base units, every number in the shortest text that
// reads back to the same double, names escaped so that the reader takes them back (see
// profile_yaml.h).
#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <cmath>
#include <stdexcept>

#include "sim/measurements/profile_node_reader.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/output/atomic_file.h"
#include "sim/scenario/enum_names.h"

namespace ddpsim {

namespace {

using profile_yaml::kFormatVersion;

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

}  // namespace ddpsim
