// Reading a torch.profiler trace's events (torch_trace_events.h), and locating an event in the
// text for messages.
#include "sim/profile/torch_trace_events.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ddpsim::torch_trace {

namespace {

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

}  // namespace

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

}  // namespace ddpsim::torch_trace
