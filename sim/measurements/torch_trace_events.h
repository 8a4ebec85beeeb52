// The events of a torch.profiler Chrome trace (see torch_trace_import.h for what is imported
// from them): the complete ("X") events, checked and sorted by start, with the trace's device
// name. A trace that is not JSON, or an event without a string name, a phase, or numeric ts and
// dur within range, is an InputError at the event's line and column. Internal to
// torch_trace_*.cpp.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/text/input_error.h"

namespace ddpsim::torch_trace {

using json = nlohmann::json;

constexpr const char* kForwardMark = "ddpsim:fwd:";
constexpr const char* kBackwardMark = "ddpsim:bwd:";
constexpr const char* kStepMark = "ddpsim:step";
constexpr const char* kModulePrefix = "nn.Module: ";
constexpr const char* kBackwardFunction = "autograd::engine::evaluate_function: ";
constexpr double kMaxSeconds = 1e6;  // what a profile holds (profile_node_reader.h)

inline bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

// One complete ("ph": "X") event, times in seconds.
struct Event {
  std::string name;
  std::string cat;
  std::string thread;  // pid/tid
  double start = 0, end = 0;
  json args;         // only the keys an import reads (null when none)
  size_t index = 0;  // in the event list, for messages

  double duration() const { return end - start; }
};

inline std::optional<int64_t> int_arg(const Event& e, const char* key) {
  if (!e.args.is_object()) return std::nullopt;
  auto it = e.args.find(key);
  if (it == e.args.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<int64_t>();
}

inline std::string string_arg(const Event& e, const char* key) {
  if (!e.args.is_object()) return "";
  auto it = e.args.find(key);
  return it != e.args.end() && it->is_string() ? it->get<std::string>() : "";
}

// Where the `index`-th element of the events array starts, for messages about it: a scan of the

struct Trace {
  std::vector<Event> events;  // complete events, by start time
  std::string device;         // Kineto's deviceProperties[0].name, if any
};

Trace read_trace(const std::string& text, const std::string& path);
// The same for the file at `path` (at most `max_bytes`), streamed: memory holds the kept events,
// not the text (which is read again only to locate an error).
Trace read_trace_file(const std::string& path, uint64_t max_bytes);

}  // namespace ddpsim::torch_trace
