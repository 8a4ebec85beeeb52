#include "sim/scenario/yaml_reader.h"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <cmath>

#include "sim/text/closest_name.h"
#include "sim/text/utf8.h"
#include "sim/text/yaml_document.h"

namespace ddpsim {
namespace {

std::string describe_kind(const YAML::Node& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map:
      return "a mapping";
    case YAML::NodeType::Sequence:
      return "a sequence";
    case YAML::NodeType::Scalar:
      return "'" + node.Scalar() + "'";
    default:
      return "nothing";
  }
}

bool is_prefix_path(const std::string& prefix, const std::string& path) {
  return path == prefix ||
         (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
          (path[prefix.size()] == '.' || path[prefix.size()] == '['));
}

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const auto& item : items) {
    if (!out.empty()) out += ", ";
    out += item;
  }
  return out;
}

// Strict decimal number: the whole text, optional sign, no unit, finite.
std::optional<double> strict_real(std::string text) {
  if (!text.empty() && text.front() == '+') text.erase(0, 1);
  if (text.empty()) return std::nullopt;
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return std::nullopt;
  }
  return value;
}

std::string format_number(double v) { return fmt::format("{}", v); }

}  // namespace

// ---------------------------------------------------------------- YamlContext

void YamlContext::add_override(const std::string& path, const std::string& origin) {
  // A later --set of a parent replaces what earlier ones set below it.
  for (auto it = overrides_.begin(); it != overrides_.end();) {
    it = is_prefix_path(path, it->first) ? overrides_.erase(it) : std::next(it);
  }
  overrides_[path] = "<--set " + origin + ">";
}

bool YamlContext::is_overridden(const std::string& path) const {
  return override_label(path).has_value();
}

// The override nearest to `path`: `--set data.storage.kind=x --set data.sample_bytes=y` creates
// section `data` with the first, and a mistake in data.sample_bytes is still the second's,
// whichever order they were given in.
std::optional<std::string> YamlContext::override_label(const std::string& path) const {
  const std::string* nearest = nullptr;
  size_t longest = 0;
  for (const auto& [prefix, label] : overrides_) {
    if (is_prefix_path(prefix, path) && (nearest == nullptr || prefix.size() > longest)) {
      nearest = &label;
      longest = prefix.size();
    }
  }
  return nearest ? std::optional<std::string>(*nearest) : std::nullopt;
}

SourceLocation YamlContext::locate(const YAML::Node& node, const std::string& path,
                                   const SourceLocation& fallback) const {
  if (auto label = override_label(path)) return SourceLocation{*label, 0, 0};
  if (auto it = pinned_.find(path); it != pinned_.end()) return it->second;
  YAML::Mark mark = node.Mark();
  if (mark.is_null() || mark.line < 0) return fallback;
  return SourceLocation{file_, mark.line + 1, mark.column + 1};
}

std::vector<std::string> YamlContext::stated_paths() const {
  std::vector<std::string> paths;
  for (const auto& entry : seen_) paths.push_back(entry.first);
  for (const auto& entry : overrides_) paths.push_back(entry.first);
  return paths;
}

SourceLocation YamlContext::where_first(const std::vector<std::string>& paths,
                                        const SourceLocation& fallback) const {
  for (const auto& path : paths) {
    auto it = seen_.find(path);
    if (it != seen_.end()) return it->second;
  }
  return fallback;
}

// ---------------------------------------------------------------- YamlSection

YamlSection::YamlSection(const YamlValue& value, std::vector<std::string> allowed,
                         YamlContext* context)
    : value_(value), allowed_(std::move(allowed)), context_(context) {
  const YAML::Node& node = value_.node;
  if (!node.IsDefined() || node.IsNull()) return;
  if (!node.IsMap()) {
    std::string keys = allowed_.empty() ? "" : " with keys " + join(allowed_);
    fail(value_, "expected a mapping" + keys + ", got " + describe_kind(node));
  }
  std::map<std::string, int> first_line;
  for (auto it = node.begin(); it != node.end(); ++it) {
    YamlValue key = make_child(it->first, it->second);
    if (!it->first.IsScalar()) {
      fail_at(key.key_where, "keys in " + display_name() + " must be plain names, got " +
                                 describe_kind(it->first));
    }
    const std::string name = it->first.Scalar();
    auto [seen, inserted] = first_line.emplace(name, it->first.Mark().line + 1);
    if (!inserted) {
      fail_at(key.key_where, fmt::format("duplicate key '{}' in {} (first given at line {})", name,
                                         display_name(), seen->second));
    }
    if (!allowed_.empty() && std::find(allowed_.begin(), allowed_.end(), name) == allowed_.end()) {
      std::string message = fmt::format("unknown key '{}' in {}; allowed keys: {}", name,
                                        display_name(), join(allowed_));
      if (auto closest = closest_name(name, allowed_))
        message += " (did you mean '" + *closest + "'?)";
      fail_at(key.key_where, message);
    }
  }
}

std::string YamlSection::display_name() const {
  return value_.path.empty() ? std::string("the top level") : value_.path;
}

std::string YamlSection::child_path(const std::string& key) const {
  return value_.path.empty() ? key : value_.path + "." + key;
}

YamlValue YamlSection::make_child(const YAML::Node& key, const YAML::Node& value) const {
  YamlValue child;
  child.node.reset(value);
  child.path = child_path(key.IsScalar() ? key.Scalar() : std::string("?"));
  child.key_where = context_->locate(key, child.path, value_.where);
  child.where = (value.IsNull() || !value.IsDefined())
                    ? child.key_where
                    : context_->locate(value, child.path, child.key_where);
  return child;
}

bool YamlSection::has(const std::string& key) const { return get(key).has_value(); }

std::optional<YamlValue> YamlSection::get(const std::string& key) const {
  const YAML::Node& node = value_.node;
  if (!node.IsDefined() || !node.IsMap()) return std::nullopt;
  for (auto it = node.begin(); it != node.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == key) {
      YamlValue child = make_child(it->first, it->second);
      context_->remember(child.path, child.where);
      return child;
    }
  }
  return std::nullopt;
}

YamlValue YamlSection::require(const std::string& key, const std::string& hint) const {
  if (auto v = get(key)) return *v;
  fail_at(where(), "missing required key '" + key + "' in " + display_name() + " (" + hint + ")");
}

std::vector<std::pair<YamlValue, YamlValue>> YamlSection::entries() const {
  std::vector<std::pair<YamlValue, YamlValue>> out;
  const YAML::Node& node = value_.node;
  if (!node.IsDefined() || !node.IsMap()) return out;
  for (auto it = node.begin(); it != node.end(); ++it) {
    YamlValue value = make_child(it->first, it->second);
    YamlValue key = value;
    key.node.reset(it->first);  // operator= would overwrite the shared node, not rebind
    key.where = value.key_where;
    context_->remember(value.path, value.where);
    out.emplace_back(std::move(key), std::move(value));
  }
  return out;
}

// ---------------------------------------------------------------- typed getters

YAML::Node load_document(const std::string& text, const std::string& path, const char* syntax,
                         const std::string& what) {
  require_utf8(text, path);
  try {
    return load_one_document(text, path, what);
  } catch (const YAML::ParserException& e) {
    // JSON allows tabs anywhere between tokens: only YAML's indentation rule applies here.
    if (std::string(syntax) == "YAML")
      throw yaml_syntax_error(e, text, path, std::string(syntax) + " syntax error");
    throw InputError(SourceLocation{path, e.mark.line + 1, e.mark.column + 1},
                     std::string(syntax) + " syntax error: " + e.msg);
  }
}

void fail(const YamlValue& value, const std::string& message) {
  fail_at(value.where, value.path.empty() ? message : value.path + ": " + message);
}

void fail_at(const SourceLocation& where, const std::string& message) {
  throw InputError(where, message);
}

std::string scalar_text(const YamlValue& value, const std::string& expected) {
  const YAML::Node& node = value.node;
  if (!node.IsDefined() || node.IsNull()) fail(value, "missing value: expected " + expected);
  if (!node.IsScalar()) fail(value, "expected " + expected + ", got " + describe_kind(node));
  return node.Scalar();
}

int64_t as_int(const YamlValue& value, int64_t min, int64_t max) {
  std::string expected = max >= std::numeric_limits<int>::max()
                             ? fmt::format("an integer >= {}", min)
                             : fmt::format("an integer in [{}, {}]", min, max);
  std::string text = scalar_text(value, expected);
  std::string digits = (!text.empty() && text.front() == '+') ? text.substr(1) : text;
  int64_t result = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), result);
  if (digits.empty() || ec != std::errc() || end != digits.data() + digits.size()) {
    fail(value, "expected " + expected + ", got '" + text + "'");
  }
  if (result < min || result > max) {
    fail(value, "expected " + expected + ", got " + text + (result > max ? " (too large)" : ""));
  }
  return result;
}

double as_real(const YamlValue& value, double min, bool min_exclusive, double max) {
  std::string expected =
      fmt::format("a number {} {}", min_exclusive ? ">" : ">=", format_number(min));
  if (max != std::numeric_limits<double>::max()) {
    expected += " and <= " + format_number(max);
  }
  std::string text = scalar_text(value, expected);
  std::optional<double> number = strict_real(text);
  if (!number) fail(value, "expected " + expected + " (no unit), got '" + text + "'");
  if (*number < min || (min_exclusive && *number == min) || *number > max) {
    fail(value, "expected " + expected + ", got " + text);
  }
  return *number;
}

bool as_bool(const YamlValue& value) {
  std::string text = scalar_text(value, "true or false");
  if (text == "true" || text == "True" || text == "TRUE") return true;
  if (text == "false" || text == "False" || text == "FALSE") return false;
  fail(value, "expected true or false, got '" + text + "'");
}

std::string as_string(const YamlValue& value) { return scalar_text(value, "a string"); }

double as_quantity(const YamlValue& value, units::Kind kind, Sign sign, bool allow_bare) {
  std::string text =
      scalar_text(value, "a quantity with a unit (" + units::allowed_units(kind) + ")");
  // Zero is zero in every unit, so "0" needs none where zero is allowed (it means "unset"); where
  // it is not, say so rather than ask for a unit.
  if (text == "0") {
    if (sign == Sign::kNonNegative) return 0;
    fail(value, "must be greater than zero, got '0'");
  }
  units::Parsed parsed = units::parse(text, kind, allow_bare);
  if (!parsed.value) fail(value, parsed.error);
  if (sign == Sign::kPositive && *parsed.value <= 0) {
    fail(value, "must be greater than zero, got '" + text + "'");
  }
  return *parsed.value;
}

}  // namespace ddpsim
