#include "sim/input/torch_trace_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "sim/cost/compute_cost.h"
#include "sim/measurements/nccl_tests_import.h"
#include "sim/measurements/torch_trace_collectives.h"
#include "sim/measurements/torch_trace_layers.h"
#include "sim/scenario/enum_names.h"
#include "sim/text/input_error.h"
#include "sim/text/input_file.h"
#include "sim/text/units.h"

namespace ddpsim {
namespace {

using namespace torch_trace;

// ---------------------------------------------------------------- assembling the run

RepeatStats stats_of(std::vector<double> samples, double scale) {
  for (double& s : samples) s *= scale;
  return repeat_stats(std::move(samples));
}

double median(std::vector<double> v) { return repeat_stats(std::move(v)).median; }

LayerKind guess_kind(const std::string& name) {
  const std::string leaf =
      name.substr(name.rfind('/') == std::string::npos ? 0 : name.rfind('/') + 1);
  static const std::pair<const char*, LayerKind> kKinds[] = {{"Conv", LayerKind::kConv},
                                                             {"Linear", LayerKind::kLinear},
                                                             {"BatchNorm", LayerKind::kBatchNorm},
                                                             {"Norm", LayerKind::kLayerNorm},
                                                             {"Embedding", LayerKind::kEmbedding},
                                                             {"Attention", LayerKind::kAttention},
                                                             {"Pool", LayerKind::kPool},
                                                             {"Softmax", LayerKind::kSoftmax},
                                                             {"Dropout", LayerKind::kDropout},
                                                             {"ReLU", LayerKind::kActivation},
                                                             {"GELU", LayerKind::kActivation},
                                                             {"SiLU", LayerKind::kActivation},
                                                             {"Tanh", LayerKind::kActivation},
                                                             {"Sigmoid", LayerKind::kActivation},
                                                             {"Loss", LayerKind::kLoss}};
  if (leaf == "loss") return LayerKind::kLoss;
  for (const auto& [key, kind] : kKinds)
    if (leaf.find(key) != std::string::npos) return kind;
  return LayerKind::kElementwise;
}

std::optional<Optimizer> optimizer_of(const Trace& t) {
  for (const Event& e : t.events) {
    if (!starts_with(e.name, "Optimizer.step#")) continue;
    if (e.name.find("Adam") != std::string::npos) return Optimizer::kAdam;
    if (e.name.find("SGD") != std::string::npos) return Optimizer::kMomentum;
  }
  return std::nullopt;
}

}  // namespace

namespace {

TorchTraceImport import_events(const Trace& trace, const std::string& path,
                               const TorchTraceOptions& options) {
  const Clock clock(trace);
  std::vector<Step> steps = find_steps(trace);

  TorchTraceImport out;
  out.gpu = clock.gpu();
  bool marks = false;
  for (const Event& e : trace.events) marks = marks || starts_with(e.name, kForwardMark);
  StepTimes st;
  if (marks) {
    st = from_marks(trace, steps, clock);
    out.layers_from = "ddpsim marks";
  } else {
    st = from_modules(trace, steps, clock);
    out.layers_from = "nn.Module events";
  }
  if (st.steps.empty())
    throw InputError({path, 0, 0},
                     "no layers in the trace: record it with annotate.py's TraceAnnotator "
                     "(calibrate/pytorch, installed in share/ddpsim/pytorch; any PyTorch), or "
                     "with torch.profiler's with_stack=True (Kineto module events); see "
                     "docs/model-import.md");
  const int warmup =
      options.warmup_steps >= 0 ? options.warmup_steps : (st.steps.size() >= 3 ? 1 : 0);
  if (warmup >= static_cast<int>(st.steps.size()))
    throw InputError({path, 0, 0}, fmt::format("--warmup-steps {} leaves none of the trace's {} "
                                               "steps",
                                               warmup, st.steps.size()));
  auto used = [&](const std::vector<double>& v) {
    return std::vector<double>(v.begin() + warmup, v.end());
  };
  out.steps = static_cast<int>(st.steps.size()) - warmup;
  out.step_time = median(used(st.step_time));
  out.optimizer = median(used(st.optimizer));

  // Per layer and pass, the samples of the used steps; medians scaled to the median pass.
  std::map<std::string, std::pair<std::vector<double>, std::vector<double>>> samples;
  for (size_t s = static_cast<size_t>(warmup); s < st.steps.size(); ++s)
    for (const std::string& name : st.order) {
      auto it = st.steps[s].find(name);
      const auto t = it == st.steps[s].end() ? std::make_pair(0.0, 0.0) : it->second;
      samples[name].first.push_back(t.first);
      samples[name].second.push_back(t.second);
    }
  // One factor for every layer: the medians then add up to the median step's layers (as the
  // exporter's --time does; see the header).
  double medians = 0;
  for (const auto& [name, v] : samples) medians += median(v.first) + median(v.second);
  std::vector<double> covered;
  for (size_t s = static_cast<size_t>(warmup); s < st.steps.size(); ++s)
    covered.push_back(st.forward[s] + st.backward[s]);
  const double scale = medians > 0 ? median(covered) / medians : 1;
  ModelRun& run = out.run;
  run.model = options.model_file ? options.model_file->name : options.model;
  run.batch = options.batch;
  run.precision = options.precision;
  if (options.model_file) run.sequence_length = options.model_file->sequence_length;
  std::map<std::string, const Layer*> known;
  if (options.model_file)
    for (const Layer& l : options.model_file->layers) known[l.name] = &l;
  const double act = activation_bytes(options.precision);
  for (const std::string& name : st.order) {
    LayerTiming timing;
    timing.name = name;
    timing.fwd = stats_of(samples[name].first, scale);
    timing.bwd = stats_of(samples[name].second, scale);
    auto it = known.find(name);
    if (it != known.end()) {
      const Layer& l = *it->second;
      timing.kind = l.kind;
      timing.fwd_flops = l.fwd_flops * options.batch;
      timing.bwd_flops = timing.fwd_flops * l.bwd_flops_factor;
      timing.fwd_bytes = l.fwd_bytes * options.batch * act;
      timing.bwd_bytes = 2 * timing.fwd_bytes;
    } else {
      timing.kind = guess_kind(name);
    }
    out.forward += timing.fwd.median;
    out.backward += timing.bwd.median;
    run.layers.push_back(std::move(timing));
  }
  if (options.model_file) {
    std::set<std::string> seen(st.order.begin(), st.order.end());
    for (const Layer& l : options.model_file->layers)
      if (!seen.count(l.name)) run.skipped.push_back({l.name, l.kind, "not in the trace"});
  }

  const std::optional<Optimizer> optimizer =
      options.optimizer ? options.optimizer : optimizer_of(trace);
  if (out.optimizer > 0 && optimizer && options.model_file && options.model_file->params() > 0) {
    std::vector<double> opt = used(st.optimizer);
    run.optimizer.push_back({*optimizer, options.model_file->params(), repeat_stats(opt)});
  } else if (out.optimizer > 0) {
    out.notes.push_back(fmt::format(
        "optimizer: {:.6g} s per step, not written (give --model-file for the parameter count{})",
        out.optimizer, optimizer ? "" : " and --optimizer"));
  }

  // Collectives: one sweep per op when at least 3 sizes were seen.
  std::map<std::string, TraceCollective> summary;
  std::map<CollectiveOp, std::map<double, std::vector<double>>> sized;
  std::map<CollectiveOp, int> groups;
  for (const CollectiveCall& c : find_collectives(trace, clock)) {
    TraceCollective& s = summary[c.name];
    s.name = c.name;
    ++s.calls;
    s.seconds += c.seconds;
    if (c.bytes > 0 && c.seconds > 0) {
      ++s.calls_with_size;
      sized[*c.op][c.bytes].push_back(c.seconds);
      groups[*c.op] = std::max(groups[*c.op], c.group);
    }
  }
  for (auto& [name, s] : summary) out.collective_calls.push_back(s);
  for (const auto& [op, by_size] : sized) {
    if (by_size.size() < 3) {
      out.notes.push_back(fmt::format("{}: {} sizes seen, too few to fit (3 needed)",
                                      collective_op_key(op), by_size.size()));
      continue;
    }
    CollectiveSweep sweep;
    sweep.op = op;
    sweep.gpus = groups[op];
    sweep.source = "torch.profiler trace: " + path;
    for (const auto& [bytes, times] : by_size) sweep.samples.push_back({bytes, median(times), 0});
    fit_sweep(&sweep);
    out.collectives.push_back(std::move(sweep));
  }
  out.device = trace.device;
  if (!trace.device.empty()) out.notes.push_back("device: " + trace.device);
  return out;
}

}  // namespace

TorchTraceImport parse_torch_trace(const std::string& text, const std::string& path,
                                   const TorchTraceOptions& options) {
  return import_events(read_trace(text, path), path, options);
}

TorchTraceImport import_torch_trace(const std::string& path, const TorchTraceOptions& options) {
  // Streamed: up to a gigabyte (the size real traces of many steps reach) in the memory of its
  // events rather than of its text.
  return import_events(read_trace_file(path, uint64_t{1} << 30), path, options);
}

std::string format_torch_trace_summary(const TorchTraceImport& t) {
  std::string out = fmt::format(
      "layers from {}, {} time, {} steps used: step {} (median)\n"
      "  {} layers: forward {}, backward {}; optimizer {}; layers + optimizer = {:.1f} % of the "
      "step\n",
      t.layers_from, t.gpu ? "GPU kernel" : "CPU wall", t.steps,
      units::format_duration(t.step_time), t.run.layers.size(), units::format_duration(t.forward),
      units::format_duration(t.backward), units::format_duration(t.optimizer),
      t.step_time > 0 ? 100 * (t.forward + t.backward + t.optimizer) / t.step_time : 0);
  for (const TraceCollective& c : t.collective_calls)
    out += fmt::format("  {}: {} calls, {} in all, {} with sizes\n", c.name, c.calls,
                       units::format_duration(c.seconds), c.calls_with_size);
  for (const std::string& n : t.notes) out += "  note: " + n + "\n";
  return out;
}

}  // namespace ddpsim
