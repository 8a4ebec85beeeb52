#include "sim/profile/torch_trace_import.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <set>

#include "sim/cost/compute_cost.h"
#include "sim/profile/nccl_tests_import.h"
#include "sim/scenario/enum_names.h"
#include "sim/util/input_error.h"
#include "sim/util/input_file.h"
#include "sim/util/units.h"

namespace ddpsim {
namespace {

using json = nlohmann::json;

constexpr const char* kForwardMark = "ddpsim:fwd:";
constexpr const char* kBackwardMark = "ddpsim:bwd:";
constexpr const char* kStepMark = "ddpsim:step";
constexpr const char* kModulePrefix = "nn.Module: ";
constexpr const char* kBackwardFunction = "autograd::engine::evaluate_function: ";
constexpr double kMaxSeconds = 1e6;  // what a profile holds (profile_yaml.cpp)

bool starts_with(const std::string& s, const char* prefix) { return s.rfind(prefix, 0) == 0; }

// ---------------------------------------------------------------- reading the events

// One complete ("ph": "X") event, times in seconds.
struct Event {
  std::string name;
  std::string cat;
  std::string thread;  // pid/tid
  double start = 0, end = 0;
  const json* args = nullptr;
  size_t index = 0;  // in the event list, for messages

  double duration() const { return end - start; }
};

std::optional<int64_t> int_arg(const Event& e, const char* key) {
  if (!e.args || !e.args->is_object()) return std::nullopt;
  auto it = e.args->find(key);
  if (it == e.args->end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

std::string string_arg(const Event& e, const char* key) {
  if (!e.args || !e.args->is_object()) return "";
  auto it = e.args->find(key);
  return it != e.args->end() && it->is_string() ? it->get<std::string>() : "";
}

// Where the `index`-th element of the events array starts, for messages about it: a scan of the
// text that follows JSON's nesting and strings (run only when there is an error to report).
SourceLocation locate_event(const std::string& text, const std::string& path, bool wrapped,
                            size_t index) {
  size_t i = 0;
  if (wrapped) {
    const size_t key = text.find("\"traceEvents\"");
    i = key == std::string::npos ? 0 : key;
  }
  i = text.find('[', i);
  int depth = 0;
  size_t element = 0;
  bool in_string = false;
  size_t found = std::string::npos;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') ++i;
      if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    if (c == '[' || c == '{') {
      if (depth == 1 && c == '{' && element++ == index) {
        found = i;
        break;
      }
      ++depth;
    }
    if (c == ']' || c == '}') --depth;
    if (depth == 0 && c == ']') break;
  }
  if (found == std::string::npos) return {path, 0, 0};
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + found, '\n'));
  const size_t line_start = text.rfind('\n', found);
  const int column =
      static_cast<int>(found - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
  return {path, line, column};
}

SourceLocation byte_location(const std::string& text, const std::string& path, size_t byte) {
  byte = std::min(byte, text.size());
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + byte, '\n'));
  const size_t line_start = byte == 0 ? std::string::npos : text.rfind('\n', byte - 1);
  const int column =
      static_cast<int>(byte - (line_start == std::string::npos ? 0 : line_start + 1)) + 1;
  return {path, line, column};
}

struct Trace {
  json document;
  std::vector<Event> events;  // complete events, by start time
  std::string device;         // Kineto's deviceProperties[0].name, if any
};

Trace read_trace(const std::string& text, const std::string& path) {
  Trace t;
  try {
    t.document = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(byte_location(text, path, e.byte > 0 ? e.byte - 1 : 0),
                     std::string("not a JSON trace: ") + e.what());
  }
  const bool wrapped = t.document.is_object();
  const json* list = &t.document;
  if (wrapped) {
    auto it = t.document.find("traceEvents");
    if (it == t.document.end() || !it->is_array())
      throw InputError({path, 1, 1},
                       "expected a Chrome trace: a list of events, or an object with a "
                       "\"traceEvents\" list (torch.profiler's export_chrome_trace)");
    list = &*it;
    if (auto props = t.document.find("deviceProperties");
        props != t.document.end() && props->is_array() && !props->empty() &&
        (*props)[0].is_object() && (*props)[0].contains("name") && (*props)[0]["name"].is_string())
      t.device = (*props)[0]["name"].get<std::string>();
  } else if (!t.document.is_array()) {
    throw InputError({path, 1, 1}, "expected a Chrome trace: a list of events or an object");
  }
  for (size_t i = 0; i < list->size(); ++i) {
    const json& e = (*list)[i];
    auto fail = [&](const std::string& message) {
      throw InputError(locate_event(text, path, wrapped, i),
                       fmt::format("event {}: {}", i, message));
    };
    if (!e.is_object()) fail("expected an object with name, ph, ts and dur");
    const auto ph = e.find("ph");
    if (ph == e.end() || !ph->is_string()) fail("missing \"ph\" (the event's phase, \"X\")");
    if (ph->get<std::string>() != "X") continue;  // instants, flows, counters, metadata
    const auto name = e.find("name");
    if (name == e.end() || !name->is_string()) fail("missing \"name\" (a string)");
    const auto ts = e.find("ts");
    if (ts == e.end() || !ts->is_number()) fail("missing \"ts\" (microseconds, a number)");
    const auto dur = e.find("dur");
    if (dur == e.end() || !dur->is_number()) fail("missing \"dur\" (microseconds, a number)");
    const double start = ts->get<double>() * 1e-6, duration = dur->get<double>() * 1e-6;
    if (!std::isfinite(start) || !std::isfinite(duration) || duration < 0 || duration > kMaxSeconds)
      fail(fmt::format("\"dur\" must be between 0 and 1e12 microseconds, got {}",
                       dur->get<double>()));
    Event ev;
    ev.name = name->get<std::string>();
    if (auto cat = e.find("cat"); cat != e.end() && cat->is_string())
      ev.cat = cat->get<std::string>();
    // Kineto draws every record_function range a second time on the GPU stream's row, at the
    // time of the kernels inside it: a second `ddpsim:step` per step that would be read as a
    // step of its own. The host ranges are the marks; the kernels give the GPU time.
    if (ev.cat == "gpu_user_annotation") continue;
    ev.thread = (e.contains("pid") ? e["pid"].dump() : "") + "/" +
                (e.contains("tid") ? e["tid"].dump() : "");
    ev.start = start;
    ev.end = start + duration;
    if (auto args = e.find("args"); args != e.end()) ev.args = &*args;
    ev.index = i;
    t.events.push_back(std::move(ev));
  }
  if (t.events.empty()) throw InputError({path, 1, 1}, "the trace has no complete (\"X\") events");
  std::stable_sort(t.events.begin(), t.events.end(),
                   [](const Event& a, const Event& b) { return a.start < b.start; });
  return t;
}

bool is_gpu_activity(const Event& e) {
  return e.cat == "kernel" || e.cat == "gpu_memcpy" || e.cat == "gpu_memset";
}

// ---------------------------------------------------------------- time: CPU or GPU

bool is_collective_kernel(const Event& e) {
  return e.name.find("nccl") != std::string::npos || e.name.find("Nccl") != std::string::npos;
}

// Time on the host timeline. Without kernels it is the host time itself. With kernels, an
// interval [begin, end) of the host timeline is worth the GPU busy time of the work launched in
// it: the sum of the kernels', copies' and memsets' durations. Not the span from the first
// kernel's start to the last one's end: under the profiler the host launches slower than the
// GPU runs, and the GPU waits between kernels (seen on an H200: ResNet-50 at batch 64 spans
// 84 ms per profiled step, its kernels are busy 27.4 ms, and the step without the profiler takes
// 29.0 ms). Collective kernels (NCCL) wait for their peers; they are counted only where a
// collective call is timed, never in a layer's time.
class Clock {
 public:
  explicit Clock(const Trace& t) {
    std::map<int64_t, double> launch;  // correlation -> launch time
    for (const Event& e : t.events)
      if (e.cat == "cuda_runtime" || e.cat == "cuda_driver")
        if (auto c = int_arg(e, "correlation")) launch[*c] = e.start;
    std::vector<Kernel> compute, all;
    for (const Event& e : t.events) {
      if (!is_gpu_activity(e)) continue;
      auto c = int_arg(e, "correlation");
      auto it = c ? launch.find(*c) : launch.end();
      const Kernel k{it != launch.end() ? it->second : e.start, e.duration()};
      all.push_back(k);
      if (!is_collective_kernel(e)) compute.push_back(k);
    }
    compute_ = Busy(std::move(compute));
    all_ = Busy(std::move(all));
  }

  bool gpu() const { return !all_.empty(); }

  // Values of the sorted host-time boundaries b[0] <= b[1] <= ...: consecutive differences are
  // the compute busy time launched between them.
  std::vector<double> values(const std::vector<double>& b) const {
    if (!gpu()) return b;
    std::vector<double> v;
    for (double host : b) v.push_back(compute_.before(host));
    return v;
  }

  // Compute busy time of the work launched inside [begin, end) (CPU: end - begin).
  double span(double begin, double end) const {
    return gpu() ? compute_.before(end) - compute_.before(begin) : end - begin;
  }

  // The same with collective kernels counted: the GPU time of a collective call.
  double collective_span(double begin, double end) const {
    return all_.before(end) - all_.before(begin);
  }

 private:
  struct Kernel {
    double host, duration;
  };
  // Prefix sums of durations in launch order.
  class Busy {
   public:
    Busy() = default;
    explicit Busy(std::vector<Kernel> k) : kernels_(std::move(k)) {
      std::stable_sort(kernels_.begin(), kernels_.end(),
                       [](const Kernel& a, const Kernel& b) { return a.host < b.host; });
      prefix_.assign(1, 0);
      for (const Kernel& x : kernels_) prefix_.push_back(prefix_.back() + x.duration);
    }
    bool empty() const { return kernels_.empty(); }
    double before(double host) const {
      const auto k = std::lower_bound(kernels_.begin(), kernels_.end(), host,
                                      [](const Kernel& x, double h) { return x.host < h; });
      return prefix_.empty() ? 0 : prefix_[k - kernels_.begin()];
    }

   private:
    std::vector<Kernel> kernels_;
    std::vector<double> prefix_;
  };
  Busy compute_, all_;
};

// ---------------------------------------------------------------- steps

struct Step {
  double start = 0, end = 0;
};

std::vector<Step> find_steps(const Trace& t) {
  std::vector<Step> steps;
  for (const Event& e : t.events)
    if (e.name == kStepMark) steps.push_back({e.start, e.end});
  if (steps.empty())
    for (const Event& e : t.events)
      if (starts_with(e.name, "ProfilerStep#")) steps.push_back({e.start, e.end});
  if (steps.empty()) {
    Step all{t.events.front().start, t.events.front().end};
    for (const Event& e : t.events) all.end = std::max(all.end, e.end);
    steps.push_back(all);
  }
  return steps;
}

// Per step and layer: forward and backward seconds, in the order the layers ran.
struct StepTimes {
  std::vector<std::string> order;
  std::vector<std::map<std::string, std::pair<double, double>>> steps;
  std::vector<double> step_time, optimizer, forward, backward;
};

bool inside(const Event& e, const Step& s) { return e.start >= s.start && e.start < s.end; }

double optimizer_time(const Trace& t, const Step& s, const Clock& clock) {
  double sum = 0;
  for (const Event& e : t.events)
    if (inside(e, s) &&
        (starts_with(e.name, "Optimizer.step#") || starts_with(e.name, "Optimizer.zero_grad#")))
      sum += clock.span(e.start, e.end);
  return sum;
}

double step_duration(const Step& s, const Clock& clock) { return clock.span(s.start, s.end); }

// ---------------------------------------------------------------- layers from ddpsim's marks

void add_time(std::map<std::string, std::pair<double, double>>* m, std::vector<std::string>* order,
              const std::string& name, double fwd, double bwd) {
  auto [it, fresh] = m->emplace(name, std::make_pair(0.0, 0.0));
  if (fresh && std::find(order->begin(), order->end(), name) == order->end())
    order->push_back(name);
  it->second.first += fwd;
  it->second.second += bwd;
}

StepTimes from_marks(const Trace& t, const std::vector<Step>& steps, const Clock& clock) {
  StepTimes out;
  for (const Step& s : steps) {
    std::vector<std::pair<double, std::string>> fwd, bwd;
    double backward_start = -1, backward_end = -1;
    for (const Event& e : t.events) {
      if (!inside(e, s)) continue;
      if (starts_with(e.name, kForwardMark))
        fwd.emplace_back(e.start, e.name.substr(std::string(kForwardMark).size()));
      else if (starts_with(e.name, kBackwardMark))
        bwd.emplace_back(e.start, e.name.substr(std::string(kBackwardMark).size()));
    }
    if (fwd.empty()) continue;
    std::sort(bwd.begin(), bwd.end());
    const double last_forward = fwd.back().first;
    for (const Event& e : t.events) {
      if (!inside(e, s) || !starts_with(e.name, kBackwardFunction) || e.start < last_forward)
        continue;
      if (backward_start < 0) backward_start = e.start;
      backward_end = std::max(backward_end, e.end);
    }
    if (backward_start < 0) backward_start = bwd.empty() ? last_forward : bwd.front().first;
    if (!bwd.empty()) backward_start = std::min(backward_start, bwd.front().first);
    backward_end = std::max({backward_end, backward_start, bwd.empty() ? 0 : bwd.back().first});

    // Boundaries on the host timeline, mapped to the clock once so the intervals tile it.
    std::vector<double> b = {s.start};
    for (const auto& f : fwd) b.push_back(f.first);
    b.push_back(backward_start);
    for (const auto& m : bwd) b.push_back(m.first);
    b.push_back(backward_end);
    for (size_t i = 1; i < b.size(); ++i) b[i] = std::max(b[i], b[i - 1]);
    const std::vector<double> v = clock.values(b);

    std::map<std::string, std::pair<double, double>> times;
    double forward = 0, backward = 0;
    for (size_t i = 0; i < fwd.size(); ++i) {
      add_time(&times, &out.order, fwd[i].second, v[i + 1] - v[i], 0);
      forward += v[i + 1] - v[i];
    }
    const size_t bs = fwd.size() + 1;  // index of backward_start
    // The loss: computed after the model's forward, its backward before the model's.
    const double loss_fwd = v[bs] - v[bs - 1];
    const double loss_bwd = v[bs + 1] - v[bs];
    add_time(&times, &out.order, "loss", loss_fwd, loss_bwd);
    forward += loss_fwd;
    backward += loss_bwd;
    for (size_t j = 0; j < bwd.size(); ++j) {
      const double d = v[bs + 2 + j] - v[bs + 1 + j];
      add_time(&times, &out.order, bwd[j].second, 0, d);
      backward += d;
    }
    out.steps.push_back(std::move(times));
    out.step_time.push_back(step_duration(s, clock));
    out.optimizer.push_back(optimizer_time(t, s, clock));
    out.forward.push_back(forward);
    out.backward.push_back(backward);
  }
  return out;
}

// ---------------------------------------------------------------- layers from module events

// Kineto's python tracer names a module call "nn.Module: <Class>_<k>". A leaf module (no module
// event nested in it) is a layer, named by the path of the modules around it.
StepTimes from_modules(const Trace& t, const std::vector<Step>& steps, const Clock& clock) {
  StepTimes out;
  std::vector<const Event*> modules;
  for (const Event& e : t.events)
    if (starts_with(e.name, kModulePrefix)) modules.push_back(&e);
  // Backward functions by sequence number.
  std::multimap<int64_t, const Event*> backward;
  for (const Event& e : t.events)
    if (starts_with(e.name, kBackwardFunction))
      if (auto seq = int_arg(e, "Sequence number")) backward.emplace(*seq, &e);
  for (const Step& s : steps) {
    std::map<std::string, std::pair<double, double>> times;
    double forward = 0, backward_total = 0;
    std::vector<const Event*> stack;
    std::vector<const Event*> in_step;
    for (const Event* m : modules)
      if (inside(*m, s)) in_step.push_back(m);
    for (size_t i = 0; i < in_step.size(); ++i) {
      const Event* m = in_step[i];
      while (!stack.empty() && !(m->start >= stack.back()->start && m->end <= stack.back()->end &&
                                 m->thread == stack.back()->thread))
        stack.pop_back();
      const bool leaf = i + 1 == in_step.size() ||
                        !(in_step[i + 1]->start >= m->start && in_step[i + 1]->end <= m->end &&
                          in_step[i + 1]->thread == m->thread);
      stack.push_back(m);
      if (!leaf) continue;
      std::string name;
      for (const Event* p : stack)
        name += (name.empty() ? "" : "/") + p->name.substr(std::string(kModulePrefix).size());
      const double fwd = clock.span(m->start, m->end);
      double bwd = 0;
      std::set<int64_t> seen;
      auto first = std::lower_bound(t.events.begin(), t.events.end(), m->start,
                                    [](const Event& e, double at) { return e.start < at; });
      for (auto op_it = first; op_it != t.events.end() && op_it->start < m->end; ++op_it) {
        const Event& op = *op_it;
        if (op.thread != m->thread) continue;
        auto seq = int_arg(op, "Sequence number");
        if (!seq || !seen.insert(*seq).second) continue;
        auto [lo, hi] = backward.equal_range(*seq);
        for (auto it = lo; it != hi; ++it)
          if (inside(*it->second, s)) bwd += clock.span(it->second->start, it->second->end);
      }
      add_time(&times, &out.order, name, fwd, bwd);
      forward += fwd;
      backward_total += bwd;
    }
    if (times.empty()) continue;
    out.steps.push_back(std::move(times));
    out.step_time.push_back(step_duration(s, clock));
    out.optimizer.push_back(optimizer_time(t, s, clock));
    out.forward.push_back(forward);
    out.backward.push_back(backward_total);
  }
  return out;
}

// ---------------------------------------------------------------- collectives

struct CollectiveCall {
  std::string name;
  std::optional<CollectiveOp> op;
  double bytes = 0;  // 0: unknown
  double seconds = 0;
  int group = 0;
};

int dtype_size(const std::string& dtype) {
  static const std::pair<const char*, int> kSizes[] = {
      {"Float", 4},         {"float", 4},    {"c10::Half", 2}, {"Half", 2},
      {"c10::BFloat16", 2}, {"BFloat16", 2}, {"Double", 8},    {"Long", 8},
      {"Int", 4},           {"Byte", 1},     {"Char", 1}};
  for (const auto& [name, size] : kSizes)
    if (dtype == name) return size;
  return 0;
}

std::optional<CollectiveOp> collective_op(std::string name) {
  std::transform(name.begin(), name.end(), name.begin(), [](unsigned char c) {
    return c == '_' ? ' ' : static_cast<char>(std::tolower(c));
  });
  name.erase(std::remove(name.begin(), name.end(), ' '), name.end());
  if (name.find("allreduce") != std::string::npos) return CollectiveOp::kAllReduce;
  if (name.find("allgather") != std::string::npos) return CollectiveOp::kAllGather;
  if (name.find("reducescatter") != std::string::npos) return CollectiveOp::kReduceScatter;
  if (name.find("broadcast") != std::string::npos) return CollectiveOp::kBroadcast;
  return std::nullopt;
}

std::vector<CollectiveCall> find_collectives(const Trace& t, const Clock& clock) {
  std::vector<CollectiveCall> calls;
  bool have_param_comms = false;
  for (const Event& e : t.events)
    have_param_comms = have_param_comms || e.name == "record_param_comms";
  for (const Event& e : t.events) {
    CollectiveCall c;
    if (e.name == "record_param_comms") {
      c.name = string_arg(e, "Collective name");
      const auto n = int_arg(e, "In msg nelems");
      const int size = dtype_size(string_arg(e, "dtype"));
      if (n && size > 0) c.bytes = static_cast<double>(*n) * size;
      c.group = static_cast<int>(int_arg(e, "Group size").value_or(0));
    } else if (!have_param_comms &&
               (starts_with(e.name, "nccl:") || starts_with(e.name, "gloo:"))) {
      c.name = e.name;
    } else {
      continue;
    }
    c.op = collective_op(c.name);
    if (!c.op) continue;
    // NCCL runs on the GPU: the kernel launched inside the call is its time.
    const double gpu_time = clock.gpu() ? clock.collective_span(e.start, e.end) : 0;
    c.seconds = gpu_time > 0 ? gpu_time : e.duration();
    calls.push_back(c);
  }
  return calls;
}

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

TorchTraceImport parse_torch_trace(const std::string& text, const std::string& path,
                                   const TorchTraceOptions& options) {
  const Trace trace = read_trace(text, path);
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

TorchTraceImport import_torch_trace(const std::string& path, const TorchTraceOptions& options) {
  // Traces of many steps grow large; a gigabyte of JSON is as much as is worth parsing whole.
  return parse_torch_trace(read_regular_file(path, "torch.profiler trace", uint64_t{1} << 30), path,
                           options);
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
