#include "sim/results/result_json.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ddpsim {

const std::array<const char*, 5> kLinkClassNames = {"intra_node", "pcie", "nic", "fabric",
                                                    "storage"};

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
          {"optimizer_s", checked(b.optimizer, "optimizer")},
          {"total_s", checked(b.total(), "total")}};
}

Breakdown breakdown_from(const json& j) {
  Breakdown b;
  b.data_wait = j.at("data_wait_s").get<double>();
  b.forward = j.at("forward_s").get<double>();
  b.backward = j.at("backward_s").get<double>();
  b.exposed_comm = j.at("exposed_comm_s").get<double>();
  b.optimizer = j.at("optimizer_s").get<double>();
  return b;
}

}  // namespace

json result_to_json(const SimulationResult& r) {
  json j;
  j["scenario"] = r.scenario;
  j["model"] = r.model;
  j["gpus"] = r.gpus;
  j["nodes"] = r.nodes;
  j["global_batch"] = checked(r.global_batch, "global_batch");
  j["iteration_time_s"] = checked(r.iteration_time, "iteration_time");
  j["samples_per_second"] = checked(r.samples_per_second, "samples_per_second");
  j["single_gpu_samples_per_second"] =
      checked(r.single_gpu_samples_per_second, "single_gpu_samples_per_second");
  j["scaling_efficiency"] = checked(r.scaling_efficiency, "scaling_efficiency");
  j["breakdown"] = breakdown_json(r.breakdown);
  j["slowest_gpu_breakdown"] = breakdown_json(r.slowest_gpu);
  j["comm_time_s"] = checked(r.comm_time, "comm_time");
  j["comm_share"] = checked(r.comm_share, "comm_share");
  j["exposed_comm_share"] = checked(r.exposed_comm_share, "exposed_comm_share");
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
                 {"max_batch_that_fits", m.max_batch_that_fits}};
  json trace = json::array();
  for (const auto& e : r.trace)
    trace.push_back({{"gpu", e.gpu},
                     {"lane", e.lane},
                     {"name", e.name},
                     {"start_s", checked(e.start, "trace")},
                     {"end_s", checked(e.end, "trace")}});
  j["trace"] = trace;
  j["staleness_max"] = r.staleness_max;
  j["staleness_mean"] = checked(r.staleness_mean, "staleness_mean");
  j["notes"] = r.notes;
  j["partial"] = r.partial;
  return j;
}

SimulationResult result_from_json(const json& j) {
  SimulationResult r;
  r.scenario = j.at("scenario").get<std::string>();
  r.model = j.at("model").get<std::string>();
  r.gpus = j.at("gpus").get<int>();
  r.nodes = j.at("nodes").get<int>();
  r.global_batch = j.at("global_batch").get<double>();
  r.iteration_time = j.at("iteration_time_s").get<double>();
  r.samples_per_second = j.at("samples_per_second").get<double>();
  r.single_gpu_samples_per_second = j.at("single_gpu_samples_per_second").get<double>();
  r.scaling_efficiency = j.at("scaling_efficiency").get<double>();
  r.breakdown = breakdown_from(j.at("breakdown"));
  r.slowest_gpu = breakdown_from(j.at("slowest_gpu_breakdown"));
  r.comm_time = j.at("comm_time_s").get<double>();
  r.comm_share = j.at("comm_share").get<double>();
  r.exposed_comm_share = j.at("exposed_comm_share").get<double>();
  r.bottleneck = j.at("bottleneck").get<std::string>();
  const json& links = j.at("bytes_per_step_by_link_class");
  for (size_t i = 0; i < r.bytes_per_link_class.size(); ++i)
    r.bytes_per_link_class[i] = links.at(kLinkClassNames[i]).get<double>();
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
  for (const auto& e : j.at("trace"))
    r.trace.push_back({e.at("gpu").get<int>(), e.at("lane").get<std::string>(),
                       e.at("name").get<std::string>(), e.at("start_s").get<double>(),
                       e.at("end_s").get<double>()});
  r.staleness_max = j.value("staleness_max", 0);
  r.staleness_mean = j.value("staleness_mean", 0.0);
  r.notes = j.at("notes").get<std::string>();
  r.partial = j.at("partial").get<bool>();
  return r;
}

json trace_to_chrome_json(const SimulationResult& r) {
  json events = json::array();
  // Perfetto groups by pid/tid: one process per GPU, one thread per lane.
  auto lane_id = [](const std::string& lane) {
    if (lane == "compute") return 1;
    if (lane == "comm") return 2;
    return 3;
  };
  std::vector<int> named;
  for (const auto& e : r.trace) {
    if (std::find(named.begin(), named.end(), e.gpu) == named.end()) {
      named.push_back(e.gpu);
      events.push_back({{"ph", "M"},
                        {"name", "process_name"},
                        {"pid", e.gpu},
                        {"args", {{"name", "GPU " + std::to_string(e.gpu)}}}});
      for (const char* lane : {"compute", "comm", "data"})
        events.push_back({{"ph", "M"},
                          {"name", "thread_name"},
                          {"pid", e.gpu},
                          {"tid", lane_id(lane)},
                          {"args", {{"name", lane}}}});
    }
    events.push_back({{"ph", "X"},
                      {"name", e.name},
                      {"cat", e.lane},
                      {"pid", e.gpu},
                      {"tid", lane_id(e.lane)},
                      {"ts", e.start * 1e6},
                      {"dur", (e.end - e.start) * 1e6}});
  }
  return {{"traceEvents", events},
          {"displayTimeUnit", "ms"},
          {"otherData", {{"scenario", r.scenario}, {"model", r.model}}}};
}

}  // namespace ddpsim
