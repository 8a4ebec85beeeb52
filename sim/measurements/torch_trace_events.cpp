// Reading a torch.profiler trace's events (torch_trace_events.h), and locating an event in the
// text for messages.
#include "sim/measurements/torch_trace_events.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <istream>
#include <optional>
#include <utility>

#include "sim/text/input_file.h"

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

namespace {

// The args an import reads (torch_trace_clock.h, torch_trace_layers.cpp,
// torch_trace_collectives.cpp); Kineto writes a dozen more per kernel, which are not kept.
bool kept_arg(const std::string& key) {
  static const char* const kKept[] = {"correlation",   "Sequence number", "Collective name",
                                      "In msg nelems", "dtype",           "Group size"};
  for (const char* k : kKept)
    if (key == k) return true;
  return false;
}

// Builds one JSON value from SAX events (nlohmann's DOM parser does the same for the whole
// document): used for one event at a time, so memory holds one event, not the trace.
class ValueBuilder {
 public:
  bool active() const { return !stack_.empty(); }
  template <class V>
  void scalar(V&& v) {
    if (stack_.empty()) {
      root_ = json(std::forward<V>(v));
      done_ = true;
      return;
    }
    json* top = stack_.back();
    if (top->is_array())
      top->emplace_back(std::forward<V>(v));
    else
      (*top)[key_] = json(std::forward<V>(v));
  }
  void open(json empty) {
    if (stack_.empty()) {
      root_ = std::move(empty);
      stack_.push_back(&root_);
      return;
    }
    json* top = stack_.back();
    if (top->is_array()) {
      top->push_back(std::move(empty));
      stack_.push_back(&top->back());
    } else {
      json& slot = (*top)[key_];
      slot = std::move(empty);
      stack_.push_back(&slot);
    }
  }
  void close() {
    stack_.pop_back();
    if (stack_.empty()) done_ = true;
  }
  void key(const std::string& k) { key_ = k; }
  // The finished value, once: a scalar or a closed container.
  std::optional<json> take() {
    if (!done_) return std::nullopt;
    done_ = false;
    return std::move(root_);
  }

 private:
  json root_;
  std::vector<json*> stack_;  // a parent gains no element while a child is open: stable
  std::string key_;
  bool done_ = false;
};

// Streams the document: each element of the events list (the top-level list, or the
// "traceEvents" list of a top-level object) and the "deviceProperties" value are built one at a
// time and handed to `on_event` / kept; every other value is skipped without being stored.
class TraceSax : public nlohmann::json_sax<json> {
 public:
  explicit TraceSax(std::function<void(const json&, size_t)> on_event)
      : on_event_(std::move(on_event)) {}

  bool null() override { return scalar(nullptr); }
  bool boolean(bool v) override { return scalar(v); }
  bool number_integer(number_integer_t v) override { return scalar(v); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(v); }
  bool number_float(number_float_t v, const string_t&) override { return scalar(v); }
  bool string(string_t& v) override { return scalar(v); }
  bool binary(binary_t&) override { return scalar(nullptr); }
  bool start_object(std::size_t) override { return open(json::object(), true); }
  bool start_array(std::size_t) override { return open(json::array(), false); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& k) override {
    if (builder_.active()) builder_.key(k);
    if (depth_ == 1 && top_object_) top_key_ = k;
    return true;
  }
  bool parse_error(std::size_t position, const std::string& token,
                   const nlohmann::detail::exception& ex) override {
    error_position = position;
    error_token = token;
    error_id = ex.id;
    error = ex.what();
    return false;
  }

  bool top_object_ = false, top_array_ = false, have_events = false;
  std::optional<json> device_properties;
  std::size_t error_position = 0;
  std::string error_token, error;
  int error_id = 0;

 private:
  // Where the next value goes: into an event or the device properties being built, or it
  // starts one (an element of the events list, or the deviceProperties value), or nowhere.
  enum class Target { kBuilding, kEvent, kDevice, kSkip };
  Target target() const {
    if (builder_.active()) return Target::kBuilding;
    if (events_depth_ > 0 && depth_ == events_depth_) return Target::kEvent;
    if (top_object_ && depth_ == 1 && top_key_ == "deviceProperties") return Target::kDevice;
    return Target::kSkip;
  }
  template <class V>
  bool scalar(V&& v) {
    const Target t = target();
    if (t == Target::kSkip) return true;
    if (t != Target::kBuilding) building_ = t;
    builder_.scalar(std::forward<V>(v));
    deliver();
    return true;
  }
  bool open(json empty, bool object) {
    const Target t = target();
    if (depth_ == 0) (object ? top_object_ : top_array_) = true;
    if (!object && ((depth_ == 0) || (depth_ == 1 && top_object_ && top_key_ == "traceEvents"))) {
      if (t != Target::kBuilding && t != Target::kDevice) {
        events_depth_ = depth_ + 1;
        have_events = true;
        ++depth_;
        return true;
      }
    }
    ++depth_;
    if (t == Target::kSkip) return true;
    if (t != Target::kBuilding) building_ = t;
    builder_.open(std::move(empty));
    return true;
  }
  bool close() {
    --depth_;
    if (builder_.active()) {
      builder_.close();
      deliver();
    } else if (events_depth_ > 0 && depth_ == events_depth_ - 1) {
      events_depth_ = 0;  // the events list ended
    }
    return true;
  }
  void deliver() {
    std::optional<json> v = builder_.take();
    if (!v) return;
    if (building_ == Target::kEvent)
      on_event_(*v, index_++);
    else
      device_properties = std::move(*v);
  }

  std::function<void(const json&, size_t)> on_event_;
  ValueBuilder builder_;
  Target building_ = Target::kSkip;
  int depth_ = 0, events_depth_ = 0;
  std::string top_key_;
  size_t index_ = 0;
};

}  // namespace

namespace {

// `text`, or with none the file at `path` read a megabyte at a time: the whole text is read again
// only to locate an error.
Trace read_events(const std::string* text, const std::string& path, uint64_t max_bytes) {
  Trace t;
  bool wrapped = false;
  // The first bad event is reported once the whole text parsed as JSON (a syntax error anywhere
  // comes first, as it did when the trace was parsed whole).
  std::optional<std::pair<size_t, std::string>> bad;
  auto on_event = [&](const json& e, size_t i) {
    if (bad) return;
    auto fail = [&](const std::string& message) { bad.emplace(i, message); };
    if (!e.is_object()) return fail("expected an object with name, ph, ts and dur");
    const auto ph = e.find("ph");
    if (ph == e.end() || !ph->is_string()) return fail("missing \"ph\" (the event's phase, \"X\")");
    if (ph->get<std::string>() != "X") return;  // instants, flows, counters, metadata
    const auto name = e.find("name");
    if (name == e.end() || !name->is_string()) return fail("missing \"name\" (a string)");
    const auto ts = e.find("ts");
    if (ts == e.end() || !ts->is_number()) return fail("missing \"ts\" (microseconds, a number)");
    const auto dur = e.find("dur");
    if (dur == e.end() || !dur->is_number())
      return fail("missing \"dur\" (microseconds, a number)");
    const double start = ts->get<double>() * 1e-6, duration = dur->get<double>() * 1e-6;
    if (!std::isfinite(start) || !std::isfinite(duration) || duration < 0 || duration > kMaxSeconds)
      return fail(fmt::format("\"dur\" must be between 0 and 1e12 microseconds, got {}",
                              dur->get<double>()));
    Event ev;
    ev.name = name->get<std::string>();
    if (auto cat = e.find("cat"); cat != e.end() && cat->is_string())
      ev.cat = cat->get<std::string>();
    // Kineto draws every record_function range a second time on the GPU stream's row, at the
    // time of the kernels inside it: a second `ddpsim:step` per step that would be read as a
    // step of its own. The host ranges are the marks; the kernels give the GPU time.
    if (ev.cat == "gpu_user_annotation") return;
    ev.thread = (e.contains("pid") ? e["pid"].dump() : "") + "/" +
                (e.contains("tid") ? e["tid"].dump() : "");
    ev.start = start;
    ev.end = start + duration;
    if (auto args = e.find("args"); args != e.end() && args->is_object())
      for (const auto& [key, value] : args->items())
        if (kept_arg(key)) ev.args[key] = value;
    ev.index = i;
    t.events.push_back(std::move(ev));
  };
  TraceSax sax(on_event);
  bool parsed = false;
  if (text != nullptr) {
    parsed = json::sax_parse(*text, &sax);
  } else {
    RegularFileReader file(path, "torch.profiler trace", max_bytes);
    std::istream in(&file);
    parsed = json::sax_parse(in, &sax);
  }
  std::string read_again;
  auto whole = [&]() -> const std::string& {
    if (text != nullptr) return *text;
    read_again = read_regular_file(path, "torch.profiler trace", max_bytes);
    return read_again;
  };
  if (!parsed) {
    if (sax.error_id == 406) {  // a number beyond a double: locate its first character
      const size_t at = sax.error_position >= sax.error_token.size()
                            ? sax.error_position - sax.error_token.size()
                            : 0;
      throw InputError(byte_location(whole(), path, at),
                       "not a JSON trace: the number " + sax.error_token +
                           " is beyond what a double holds (about 1.8e308)");
    }
    throw InputError(
        byte_location(whole(), path, sax.error_position > 0 ? sax.error_position - 1 : 0),
        "not a JSON trace: " + sax.error);
  }
  wrapped = sax.top_object_;
  if (wrapped && !sax.have_events)
    throw InputError({path, 1, 1},
                     "expected a Chrome trace: a list of events, or an object with a "
                     "\"traceEvents\" list (torch.profiler's export_chrome_trace)");
  if (!wrapped && !sax.top_array_)
    throw InputError({path, 1, 1}, "expected a Chrome trace: a list of events or an object");
  if (bad)
    throw InputError(locate_event(whole(), path, wrapped, bad->first),
                     fmt::format("event {}: {}", bad->first, bad->second));
  if (const auto& props = sax.device_properties;
      props && props->is_array() && !props->empty() && (*props)[0].is_object() &&
      (*props)[0].contains("name") && (*props)[0]["name"].is_string())
    t.device = (*props)[0]["name"].get<std::string>();
  if (t.events.empty()) throw InputError({path, 1, 1}, "the trace has no complete (\"X\") events");
  std::stable_sort(t.events.begin(), t.events.end(),
                   [](const Event& a, const Event& b) { return a.start < b.start; });
  return t;
}

}  // namespace

Trace read_trace(const std::string& text, const std::string& path) {
  return read_events(&text, path, 0);
}

Trace read_trace_file(const std::string& path, uint64_t max_bytes) {
  return read_events(nullptr, path, max_bytes);
}

}  // namespace ddpsim::torch_trace
