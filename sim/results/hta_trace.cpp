#include "sim/results/hta_trace.h"

#include <cctype>
#include <map>
#include <string>

#include "sim/results/result_json.h"

namespace ddpsim {
namespace {

using nlohmann::json;

// Streams as PyTorch shows them: 7 is the default (compute) stream; NCCL and copies get their own.
constexpr int kComputeStream = 7;
constexpr int kCommStream = 20;
constexpr int kAcrossStream = 21;  // fsdp-hybrid's all-reduce across nodes
constexpr int kCopyStream = 22;
constexpr int kDevicePid = 0;     // Kineto: the GPU's events under its device index
constexpr int kHostPid = 1;       // the training process
constexpr int kMainThread = 1;    // ProfilerStep#N and the kernel launches
constexpr int kLoaderThread = 2;  // the data loader's reads and decodes

// "all-reduce" -> "AllReduce": NCCL's collective names in its kernel names.
std::string nccl_collective(const std::string& collective) {
  static const std::map<std::string, std::string> names = {{"all-reduce", "AllReduce"},
                                                           {"reduce-scatter", "ReduceScatter"},
                                                           {"all-gather", "AllGather"},
                                                           {"push/pull", "SendRecv"}};
  const auto it = names.find(collective);
  return it != names.end() ? it->second : "SendRecv";
}

// "ring/LL128" -> "RING_LL128" (NCCL's kernel names spell algorithm and protocol so).
std::string nccl_algorithm(std::string algorithm) {
  for (char& c : algorithm) c = c == '/' || c == ' ' ? '_' : static_cast<char>(std::toupper(c));
  return algorithm;
}

json complete(const std::string& name, const char* cat, int pid, int tid, const TraceEvent& e) {
  return {{"ph", "X"},
          {"name", name},
          {"cat", cat},
          {"pid", pid},
          {"tid", tid},
          {"ts", e.start * 1e6},
          {"dur", (e.end - e.start) * 1e6}};
}

json metadata(const char* what, int pid, int tid, const std::string& name) {
  json m = {{"ph", "M"}, {"name", what}, {"pid", pid}, {"args", {{"name", name}}}};
  if (tid >= 0) m["tid"] = tid;
  return m;
}

json one_rank(const SimulationResult& r, const GpuSpec& gpu, int rank) {
  json events = json::array();
  events.push_back(
      metadata("process_name", kHostPid, -1, "python (rank " + std::to_string(rank) + ")"));
  events.push_back(metadata("thread_name", kHostPid, kMainThread, "main"));
  events.push_back(metadata("thread_name", kHostPid, kLoaderThread, "data loader"));
  events.push_back(metadata("process_name", kDevicePid, -1, "GPU 0"));
  int correlation = 0;
  for (const TraceEvent& e : r.trace) {
    if (e.gpu != rank) continue;
    json args = trace_args_json(e);
    if (e.lane == "step") {
      events.push_back(complete(e.name, "user_annotation", kHostPid, kMainThread, e));
      events.back()["args"] = args;
      continue;
    }
    if (e.lane == "data" && e.name.compare(0, 8, "h2d copy") != 0) {
      events.push_back(complete(e.name, "cpu_op", kHostPid, kLoaderThread, e));
      events.back()["args"] = args;
      continue;
    }
    // Waits are no GPU work: HTA finds them as the gaps between kernels.
    if (e.lane == "compute" && e.name.find("wait") != std::string::npos) continue;
    std::string name = e.name;
    const char* cat = "kernel";
    int stream = kComputeStream;
    if (e.lane.compare(0, 4, "comm") == 0) {
      const auto collective = e.texts.find("collective");
      const auto algorithm = e.texts.find("algorithm");
      const std::string nccl =
          nccl_collective(collective != e.texts.end() ? collective->second : "");
      name = "ncclKernel_" + nccl +
             (algorithm != e.texts.end() ? "_" + nccl_algorithm(algorithm->second) : "") + " (" +
             e.name + ")";
      args["Collective name"] = collective != e.texts.end() ? collective->second : nccl;
      args["Group size"] = r.gpus;
      stream = e.lane == "comm" ? kCommStream : kAcrossStream;
    } else if (e.lane == "data") {
      name = "Memcpy HtoD (Pinned -> Device)";
      cat = "gpu_memcpy";
      stream = kCopyStream;
    }
    ++correlation;
    args["device"] = 0;
    args["stream"] = stream;
    args["correlation"] = correlation;
    json kernel = complete(name, cat, kDevicePid, stream, e);
    kernel["args"] = args;
    events.push_back(kernel);
    // The launch: ddpsim models no host launch cost, so a zero-length call at the kernel's start.
    const double ts = e.start * 1e6;
    events.push_back(
        {{"ph", "X"},
         {"name", cat == std::string("gpu_memcpy") ? "cudaMemcpyAsync" : "cudaLaunchKernel"},
         {"cat", "cuda_runtime"},
         {"pid", kHostPid},
         {"tid", kMainThread},
         {"ts", ts},
         {"dur", 0},
         {"args", {{"correlation", correlation}}}});
    events.push_back({{"ph", "s"},
                      {"id", correlation},
                      {"name", "ac2g"},
                      {"cat", "ac2g"},
                      {"pid", kHostPid},
                      {"tid", kMainThread},
                      {"ts", ts}});
    events.push_back({{"ph", "f"},
                      {"bp", "e"},
                      {"id", correlation},
                      {"name", "ac2g"},
                      {"cat", "ac2g"},
                      {"pid", kDevicePid},
                      {"tid", stream},
                      {"ts", ts}});
  }
  for (int stream : {kComputeStream, kCommStream, kAcrossStream, kCopyStream})
    events.push_back(
        metadata("thread_name", kDevicePid, stream, "stream " + std::to_string(stream)));
  json device = {
      {"id", 0}, {"name", gpu.name}, {"totalGlobalMem", static_cast<int64_t>(gpu.memory_bytes)}};
  if (gpu.compute_capability > 0) {
    device["computeMajor"] = gpu.compute_capability / 10;
    device["computeMinor"] = gpu.compute_capability % 10;
  }
  return {{"schemaVersion", 1},
          {"distributedInfo", {{"backend", "nccl"}, {"rank", rank}, {"world_size", r.gpus}}},
          {"deviceProperties", json::array({device})},
          {"displayTimeUnit", "ms"},
          {"traceName", r.scenario + " rank " + std::to_string(rank)},
          {"traceEvents", events}};
}

}  // namespace

std::vector<std::pair<int, json>> hta_traces(const SimulationResult& r, const GpuSpec& gpu) {
  std::vector<std::pair<int, json>> out;
  for (int rank : r.traced_gpus) out.emplace_back(rank, one_rank(r, gpu, rank));
  return out;
}

}  // namespace ddpsim
