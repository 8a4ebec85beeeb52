// Finding and timing the collective calls of a torch.profiler trace
// (torch_trace_collectives.h).
#include "sim/measurements/torch_trace_collectives.h"

#include <algorithm>
#include <cctype>

namespace ddpsim::torch_trace {

namespace {

// ---------------------------------------------------------------- collectives

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

}  // namespace

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

}  // namespace ddpsim::torch_trace
