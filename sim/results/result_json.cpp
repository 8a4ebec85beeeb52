#include "sim/results/result_json.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <tuple>
#include <stdexcept>
#include <utility>
#include <vector>

namespace ddpsim {

const std::array<const char*, 6> kLinkClassNames = {"intra_node", "pcie",    "nic",
                                                    "fabric",     "storage", "host"};

namespace {

using nlohmann::json;

// No NaN or infinity may reach a results file: it would be a wrong number with a straight face.
double checked(double v, const char* what) {
  if (!std::isfinite(v)) throw std::runtime_error(std::string("non-finite result: ") + what);
  return v;
}

json breakdown_json(const Breakdown& b) {
  return {{"data_wait_s", checked(b.data_wait, "data_wait")},
          {"forward_s", checked(b.forward, "forward")},
          {"backward_s", checked(b.backward, "backward")},
          {"exposed_comm_s", checked(b.exposed_comm, "exposed_comm")},
          {"straggler_wait_s", checked(b.straggler_wait, "straggler_wait")},
          {"optimizer_s", checked(b.optimizer, "optimizer")},
          {"total_s", checked(b.total(), "total")}};
}

Breakdown breakdown_from(const json& j) {
  Breakdown b;
  b.data_wait = j.at("data_wait_s").get<double>();
  b.forward = j.at("forward_s").get<double>();
  b.backward = j.at("backward_s").get<double>();
  b.exposed_comm = j.at("exposed_comm_s").get<double>();
  b.straggler_wait = j.at("straggler_wait_s").get<double>();
  b.optimizer = j.at("optimizer_s").get<double>();
  return b;
}

json link_json(const LinkReport& l) {
  return {{"name", l.name},
          {"class", l.link_class},
          {"group", l.group},
          {"label", l.label},
          {"node", l.node},
          {"leaf", l.leaf},
          {"bandwidth_bytes_per_s", checked(l.bandwidth, "link bandwidth")},
          {"bytes_per_step", checked(l.bytes, "link bytes")},
          {"accounted_bytes_per_step", checked(l.accounted_bytes, "link accounted bytes")},
          {"busy_s", checked(l.busy, "link busy")},
          {"utilisation", checked(l.utilisation, "link utilisation")}};
}

LinkReport link_from(const json& j) {
  LinkReport l;
  l.name = j.at("name").get<std::string>();
  l.link_class = j.at("class").get<std::string>();
  l.group = j.at("group").get<std::string>();
  l.label = j.at("label").get<std::string>();
  l.node = j.at("node").get<int>();
  l.leaf = j.at("leaf").get<int>();
  l.bandwidth = j.at("bandwidth_bytes_per_s").get<double>();
  l.bytes = j.at("bytes_per_step").get<double>();
  l.accounted_bytes = j.at("accounted_bytes_per_step").get<double>();
  l.busy = j.at("busy_s").get<double>();
  l.utilisation = j.at("utilisation").get<double>();
  return l;
}

json links_json(const LinkUsage& u) {
  json classes = json::object();
  for (const LinkClassReport& c : u.classes)
    classes[c.link_class] = {{"links", c.links},
                             {"used", c.used},
                             {"bytes_per_step", checked(c.bytes, "class bytes")},
                             {"busy_max_s", checked(c.busy_max, "class busy")},
                             {"utilisation_max", checked(c.utilisation_max, "class utilisation")},
                             {"utilisation_mean", checked(c.utilisation_mean, "class utilisation")},
                             {"busiest", c.busiest}};
  json busiest = json::array(), fabric = json::array();
  for (const LinkReport& l : u.busiest) busiest.push_back(link_json(l));
  for (const LinkReport& l : u.fabric) fabric.push_back(link_json(l));
  json rows = json::array();
  for (const auto& row : u.per_node) {
    json cells = json::array();
    for (double v : row) cells.push_back(v < 0 ? json(nullptr) : json(checked(v, "heat map")));
    rows.push_back(cells);
  }
  return {{"measured_s", checked(u.window, "link window")},
          {"measured_steps", u.steps},
          {"classes", classes},
          {"busiest", busiest},
          {"fabric", fabric},
          {"heat_map", {{"groups", u.node_groups}, {"per_node", rows}}}};
}

LinkUsage links_from(const json& j) {
  LinkUsage u;
  u.window = j.at("measured_s").get<double>();
  u.steps = j.at("measured_steps").get<int>();
  for (const char* name : kLinkClassNames) {
    if (!j.at("classes").contains(name)) continue;
    const json& c = j.at("classes").at(name);
    u.classes.push_back({name, c.at("links").get<int>(), c.at("used").get<int>(),
                         c.at("bytes_per_step").get<double>(), c.at("busy_max_s").get<double>(),
                         c.at("utilisation_max").get<double>(),
                         c.at("utilisation_mean").get<double>(),
                         c.at("busiest").get<std::string>()});
  }
  for (const json& l : j.at("busiest")) u.busiest.push_back(link_from(l));
  for (const json& l : j.at("fabric")) u.fabric.push_back(link_from(l));
  u.node_groups = j.at("heat_map").at("groups").get<std::vector<std::string>>();
  for (const json& row : j.at("heat_map").at("per_node")) {
    std::vector<double> cells;
    for (const json& v : row) cells.push_back(v.is_null() ? -1.0 : v.get<double>());
    u.per_node.push_back(std::move(cells));
  }
  return u;
}

}  // namespace

json trace_args_json(const TraceEvent& e) {
  json args = json::object();
  // Whole numbers (bucket, bytes, step) as integers, as Perfetto shows them.
  for (const auto& [key, value] : e.numbers)
    args[key] = value == std::floor(value) && std::fabs(value) < 1e15
                    ? json(static_cast<int64_t>(value))
                    : json(checked(value, "trace arg"));
  for (const auto& [key, value] : e.texts) args[key] = value;
  return args;
}

// Transformers' units (model_flops.h): tokens/s, per GPU, MFU and HFU with what they rest on;
// null for a model without attention.
static json llm_json(const SimulationResult& r) {
  if (!(r.tokens_per_sample > 0)) return nullptr;
  return {{"tokens_per_sample", checked(r.tokens_per_sample, "tokens_per_sample")},
          {"tokens_per_second", checked(r.tokens_per_second(), "tokens_per_second")},
          {"tokens_per_second_per_gpu",
           checked(r.tokens_per_second_per_gpu(), "tokens_per_second_per_gpu")},
          {"model_flops_per_token", checked(r.model_flops_per_token, "model_flops_per_token")},
          {"hardware_flops_per_token",
           checked(r.hardware_flops_per_token, "hardware_flops_per_token")},
          {"peak_flops_per_gpu", checked(r.peak_flops_per_gpu, "peak_flops_per_gpu")},
          {"mfu", checked(r.mfu(), "mfu")},
          {"hfu", checked(r.hfu(), "hfu")}};
}

json result_to_json(const SimulationResult& r) {
  json j;
  j["scenario"] = r.scenario;
  j["model"] = r.model;
  j["model_parameters"] = r.model_parameters;
  j["model_trainable_parameters"] = r.model_trainable_parameters;
  j["model_forward_flops_per_sample"] =
      checked(r.model_forward_flops_per_sample, "model_forward_flops_per_sample");
  j["gpus"] = r.gpus;
  j["nodes"] = r.nodes;
  j["llm"] = llm_json(r);
  j["global_batch"] = checked(r.global_batch, "global_batch");
  j["iteration_time_s"] = checked(r.iteration_time, "iteration_time");
  j["samples_per_second"] = checked(r.samples_per_second, "samples_per_second");
  // Without the single-GPU run (--no-baseline) neither number exists: null, not a 0 to misread.
  const bool baseline = r.single_gpu_samples_per_second > 0;
  j["single_gpu_samples_per_second"] =
      baseline ? json(checked(r.single_gpu_samples_per_second, "single_gpu_samples_per_second"))
               : json(nullptr);
  j["scaling_efficiency"] =
      baseline ? json(checked(r.scaling_efficiency, "scaling_efficiency")) : json(nullptr);
  j["single_gpu_bottleneck"] = baseline ? json(r.single_gpu_bottleneck) : json(nullptr);
  j["breakdown"] = breakdown_json(r.breakdown);
  j["slowest_gpu_breakdown"] = breakdown_json(r.slowest_gpu);
  j["comm_time_s"] = checked(r.comm_time, "comm_time");
  j["comm_share"] = checked(r.comm_share, "comm_share");
  j["exposed_comm_share"] = checked(r.exposed_comm_share, "exposed_comm_share");
  j["straggler_share"] = checked(r.straggler_share, "straggler_share");
  j["bottleneck"] = r.bottleneck;
  json links = json::object();
  for (size_t i = 0; i < r.bytes_per_link_class.size(); ++i)
    links[kLinkClassNames[i]] = checked(r.bytes_per_link_class[i], "bytes_per_link_class");
  j["bytes_per_step_by_link_class"] = links;
  j["bytes_sent_per_step"] = checked(r.bytes_sent, "bytes_sent");
  j["bytes_received_per_step"] = checked(r.bytes_received, "bytes_received");
  json buckets = json::array();
  for (const auto& b : r.buckets)
    buckets.push_back({{"index", b.index},
                       {"tensors", b.tensors},
                       {"bytes", checked(b.bytes, "bucket bytes")},
                       {"algorithm", b.algorithm},
                       {"comm_time_s", checked(b.comm_time, "bucket comm_time")}});
  j["buckets"] = buckets;
  j["data_rate_per_gpu"] = checked(r.data_rate_per_gpu, "data_rate_per_gpu");
  j["train_rate_per_gpu"] = checked(r.train_rate_per_gpu, "train_rate_per_gpu");
  const MemoryReport& m = r.memory;
  j["memory"] = {{"weights_bytes", checked(m.weights, "memory")},
                 {"gradients_bytes", checked(m.gradients, "memory")},
                 {"optimizer_state_bytes", checked(m.optimizer_state, "memory")},
                 {"activations_bytes", checked(m.activations, "memory")},
                 {"workspace_bytes", checked(m.workspace, "memory")},
                 {"total_bytes", checked(m.total, "memory")},
                 {"capacity_bytes", checked(m.capacity, "memory")},
                 {"fits", m.fits},
                 {"max_batch_that_fits", m.max_batch_that_fits},
                 {"in_flight_bytes", checked(m.in_flight, "memory")},
                 {"fits_with", m.fits_with}};
  j["links"] = links_json(r.links);
  j["bottleneck_link"] = r.bottleneck_link;
  json trace = json::array();
  for (const auto& e : r.trace)
    trace.push_back({{"gpu", e.gpu},
                     {"lane", e.lane},
                     {"name", e.name},
                     {"start_s", checked(e.start, "trace")},
                     {"end_s", checked(e.end, "trace")},
                     {"args", trace_args_json(e)}});
  j["trace"] = trace;
  j["traced_gpus"] = r.traced_gpus;
  json counters = json::array();
  for (const LinkCounter& c : r.link_counters) {
    json points = json::array();
    for (const auto& [t, u] : c.points)
      points.push_back({checked(t, "counter time"), checked(u, "counter value")});
    counters.push_back({{"link", c.link}, {"points", points}});
  }
  j["link_counters"] = counters;
  j["staleness_max"] = r.staleness_max;
  j["staleness_mean"] = checked(r.staleness_mean, "staleness_mean");
  j["notes"] = r.notes;
  j["warnings"] = r.warnings;
  j["partial"] = r.partial;
  return j;
}

SimulationResult result_from_json(const json& j) {
  SimulationResult r;
  r.scenario = j.at("scenario").get<std::string>();
  r.model = j.at("model").get<std::string>();
  // Absent from results written before the model's counts were reported.
  r.model_parameters = j.value("model_parameters", int64_t{0});
  r.model_trainable_parameters = j.value("model_trainable_parameters", int64_t{0});
  r.model_forward_flops_per_sample = j.value("model_forward_flops_per_sample", 0.0);
  r.gpus = j.at("gpus").get<int>();
  // Absent from results written before the LLM units; null for a model without attention.
  if (const auto llm = j.find("llm"); llm != j.end() && llm->is_object()) {
    r.tokens_per_sample = llm->value("tokens_per_sample", 0.0);
    r.model_flops_per_token = llm->value("model_flops_per_token", 0.0);
    r.hardware_flops_per_token = llm->value("hardware_flops_per_token", 0.0);
    r.peak_flops_per_gpu = llm->value("peak_flops_per_gpu", 0.0);
  }
  r.nodes = j.at("nodes").get<int>();
  r.global_batch = j.at("global_batch").get<double>();
  r.iteration_time = j.at("iteration_time_s").get<double>();
  r.samples_per_second = j.at("samples_per_second").get<double>();
  const json& one = j.at("single_gpu_samples_per_second");
  r.single_gpu_samples_per_second = one.is_null() ? 0 : one.get<double>();
  const json& efficiency = j.at("scaling_efficiency");
  r.scaling_efficiency = efficiency.is_null() ? 0 : efficiency.get<double>();
  if (const auto b = j.find("single_gpu_bottleneck"); b != j.end() && b->is_string())
    r.single_gpu_bottleneck = b->get<std::string>();
  r.breakdown = breakdown_from(j.at("breakdown"));
  r.slowest_gpu = breakdown_from(j.at("slowest_gpu_breakdown"));
  r.comm_time = j.at("comm_time_s").get<double>();
  r.comm_share = j.at("comm_share").get<double>();
  r.exposed_comm_share = j.at("exposed_comm_share").get<double>();
  r.straggler_share = j.at("straggler_share").get<double>();
  r.bottleneck = j.at("bottleneck").get<std::string>();
  const json& links = j.at("bytes_per_step_by_link_class");
  for (size_t i = 0; i < r.bytes_per_link_class.size(); ++i)
    r.bytes_per_link_class[i] = links.value(kLinkClassNames[i], 0.0);  // "host" came later
  r.bytes_sent = j.at("bytes_sent_per_step").get<double>();
  r.bytes_received = j.at("bytes_received_per_step").get<double>();
  for (const auto& b : j.at("buckets"))
    r.buckets.push_back({b.at("index").get<int>(), b.at("tensors").get<int>(),
                         b.at("bytes").get<double>(), b.at("algorithm").get<std::string>(),
                         b.at("comm_time_s").get<double>()});
  r.data_rate_per_gpu = j.at("data_rate_per_gpu").get<double>();
  r.train_rate_per_gpu = j.at("train_rate_per_gpu").get<double>();
  const json& m = j.at("memory");
  r.memory.weights = m.at("weights_bytes").get<double>();
  r.memory.gradients = m.at("gradients_bytes").get<double>();
  r.memory.optimizer_state = m.at("optimizer_state_bytes").get<double>();
  r.memory.activations = m.at("activations_bytes").get<double>();
  r.memory.workspace = m.at("workspace_bytes").get<double>();
  r.memory.total = m.at("total_bytes").get<double>();
  r.memory.capacity = m.at("capacity_bytes").get<double>();
  r.memory.fits = m.at("fits").get<bool>();
  r.memory.max_batch_that_fits = m.at("max_batch_that_fits").get<int>();
  r.memory.in_flight = m.value("in_flight_bytes", 0.0);
  r.memory.fits_with = m.value("fits_with", std::string());
  if (j.contains("links")) r.links = links_from(j.at("links"));
  r.bottleneck_link = j.value("bottleneck_link", std::string());
  for (const auto& e : j.at("trace")) {
    TraceEvent event(e.at("gpu").get<int>(), e.at("lane").get<std::string>(),
                     e.at("name").get<std::string>(), e.at("start_s").get<double>(),
                     e.at("end_s").get<double>());
    if (e.contains("args"))
      for (const auto& [key, value] : e.at("args").items()) {
        if (value.is_number())
          event.numbers[key] = value.get<double>();
        else
          event.texts[key] = value.get<std::string>();
      }
    r.trace.push_back(std::move(event));
  }
  if (j.contains("traced_gpus")) r.traced_gpus = j.at("traced_gpus").get<std::vector<int>>();
  if (j.contains("link_counters"))
    for (const auto& c : j.at("link_counters")) {
      LinkCounter counter;
      counter.link = c.at("link").get<std::string>();
      for (const auto& p : c.at("points"))
        counter.points.emplace_back(p.at(0).get<double>(), p.at(1).get<double>());
      r.link_counters.push_back(std::move(counter));
    }
  r.staleness_max = j.value("staleness_max", 0);
  r.staleness_mean = j.value("staleness_mean", 0.0);
  r.notes = j.at("notes").get<std::string>();
  if (j.contains("warnings")) r.warnings = j.at("warnings").get<std::vector<std::string>>();
  r.partial = j.at("partial").get<bool>();
  return r;
}

// Chrome's Trace Event Format
// (docs.google.com/document/d/1CvAClvFfyA5R-PhYUmn5OOQtYMH4h6I0nSsKchNAySU): complete slices (ph X,
// microseconds), metadata (ph M), flow arrows (ph s / f, the end bound to its enclosing slice with
// bp e) and counters (ph C). pid 0 is Perfetto's swapper: GPU r is process r + 1, the links'
// counters the process after the last GPU.
json trace_to_chrome_json(const SimulationResult& r) {
  json events = json::array();
  const std::array<const char*, 4> lanes = {"step", "compute", "comm", "data"};
  auto lane_id = [&](const std::string& lane) {
    for (size_t i = 0; i < lanes.size(); ++i)
      if (lane == lanes[i]) return static_cast<int>(i) + 1;
    return static_cast<int>(lanes.size()) + 1;
  };
  const int per_node = r.nodes > 0 ? std::max(1, r.gpus / r.nodes) : 1;
  auto meta = [&](const char* what, int pid, int tid, const json& args) {
    json m = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", args}};
    if (tid >= 0) m["tid"] = tid;
    events.push_back(m);
  };
  // Processes and their threads, only the lanes that have slices.
  std::vector<std::pair<int, std::string>> threads;
  for (const auto& e : r.trace)
    if (std::find(threads.begin(), threads.end(), std::make_pair(e.gpu, e.lane)) == threads.end())
      threads.emplace_back(e.gpu, e.lane);
  std::sort(threads.begin(), threads.end(), [&](const auto& a, const auto& b) {
    return a.first != b.first ? a.first < b.first : lane_id(a.second) < lane_id(b.second);
  });
  int named = -1;
  for (const auto& [gpu, lane] : threads) {
    if (gpu != named) {
      named = gpu;
      meta("process_name", gpu + 1, -1,
           {{"name",
             "GPU " + std::to_string(gpu) + " (node " + std::to_string(gpu / per_node) + ")"}});
      meta("process_sort_index", gpu + 1, -1, {{"sort_index", gpu + 1}});
    }
    meta("thread_name", gpu + 1, lane_id(lane), {{"name", lane}});
    meta("thread_sort_index", gpu + 1, lane_id(lane), {{"sort_index", lane_id(lane)}});
  }
  for (const auto& e : r.trace)
    events.push_back({{"ph", "X"},
                      {"name", e.name},
                      {"cat", e.lane},
                      {"pid", e.gpu + 1},
                      {"tid", lane_id(e.lane)},
                      {"ts", e.start * 1e6},
                      {"dur", (e.end - e.start) * 1e6},
                      {"args", trace_args_json(e)}});
  // Arrows from the backward segment that filled bucket k to the collective that reduced it.
  // From each backward segment of a bucket (DDP) or wrapped unit (sharded runs) to the GPU's
  // first communication slice of it starting at or after the segment (the earliest in trace order
  // on a tie); never to an all-gather, which carries the same unit the other way. The slices are
  // indexed by (GPU, key, number) sorted by start: a scan of the whole trace per segment was
  // quadratic (thousands of buckets).
  const char* const keys[] = {"bucket", "unit"};
  std::map<std::tuple<int, int, double>, std::vector<std::pair<double, size_t>>> comm_slices;
  for (size_t i = 0; i < r.trace.size(); ++i) {
    const TraceEvent& e = r.trace[i];
    if (e.lane.compare(0, 4, "comm") != 0) continue;
    const auto collective = e.texts.find("collective");
    if (collective != e.texts.end() && collective->second == "all-gather") continue;
    for (int k = 0; k < 2; ++k) {
      const auto b = e.numbers.find(keys[k]);
      if (b != e.numbers.end()) comm_slices[{e.gpu, k, b->second}].emplace_back(e.start, i);
    }
  }
  for (auto& [key, slices] : comm_slices) std::sort(slices.begin(), slices.end());
  int flow_id = 0;
  for (const auto& from : r.trace) {
    if (from.lane != "compute") continue;
    const int k = from.numbers.count("bucket") ? 0 : 1;
    const auto bucket = from.numbers.find(keys[k]);
    if (bucket == from.numbers.end()) continue;
    const auto slices = comm_slices.find({from.gpu, k, bucket->second});
    if (slices == comm_slices.end()) continue;
    const auto first = std::lower_bound(slices->second.begin(), slices->second.end(),
                                        std::make_pair(from.start, size_t{0}));
    if (first == slices->second.end()) continue;
    const TraceEvent* to = &r.trace[first->second];
    const std::string name =
        std::string(keys[k]) + " " + std::to_string(static_cast<int>(bucket->second));
    ++flow_id;
    events.push_back({{"ph", "s"},
                      {"id", flow_id},
                      {"name", name},
                      {"cat", "gradients"},
                      {"pid", from.gpu + 1},
                      {"tid", lane_id(from.lane)},
                      {"ts", (from.start + from.end) / 2 * 1e6}});
    events.push_back({{"ph", "f"},
                      {"bp", "e"},
                      {"id", flow_id},
                      {"name", name},
                      {"cat", "gradients"},
                      {"pid", to->gpu + 1},
                      {"tid", lane_id(to->lane)},
                      {"ts", (to->start + to->end) / 2 * 1e6}});
  }
  // Link utilisation counters in a process of their own.
  if (!r.link_counters.empty()) {
    const int pid = r.gpus + 1;
    meta("process_name", pid, -1, {{"name", "network links (utilisation %)"}});
    meta("process_sort_index", pid, -1, {{"sort_index", pid}});
    for (const LinkCounter& c : r.link_counters)
      for (const auto& [t, u] : c.points)
        events.push_back({{"ph", "C"},
                          {"name", c.link},
                          {"pid", pid},
                          {"ts", t * 1e6},
                          {"args", {{"utilisation %", 100 * u}}}});
  }
  return {{"traceEvents", events},
          {"displayTimeUnit", "ms"},
          {"otherData", {{"scenario", r.scenario}, {"model", r.model}}}};
}

}  // namespace ddpsim
