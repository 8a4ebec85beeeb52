// Strict, located reading of a YAML tree: every value knows its dotted path and where it was
// written (file:line:column, or "<--set path>" when a command-line override supplied it), and
// every typed getter throws InputError at that place naming what was expected.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/scenario/enum_names.h"
#include "sim/text/input_error.h"
#include "sim/text/units.h"

namespace ddpsim {

// What the reader knows about the document: its file, which paths --set overrides supplied, and
// where each value that was read lives (for checks that involve several fields).
class YamlContext {
 public:
  explicit YamlContext(std::string file) : file_(std::move(file)) {}

  const std::string& file() const { return file_; }

  // Values at `path` or below it came from `--set origin=...` (origin is `path` itself, or a
  // key below it for sections the override created).
  void add_override(const std::string& path, const std::string& origin);
  bool is_overridden(const std::string& path) const;
  // The value at `path` was moved by the reader itself; report it where it was written.
  void pin(const std::string& path, const SourceLocation& where) { pinned_[path] = where; }

  // Where `node`, found at `path`, was written; `fallback` when the node carries no mark.
  SourceLocation locate(const YAML::Node& node, const std::string& path,
                        const SourceLocation& fallback) const;

  void remember(const std::string& path, const SourceLocation& where) { seen_[path] = where; }
  // Every path read so far or supplied by --set: what the user stated.
  std::vector<std::string> stated_paths() const;
  // The location of the first of `paths` that was read, else `fallback`.
  SourceLocation where_first(const std::vector<std::string>& paths,
                             const SourceLocation& fallback) const;

 private:
  std::optional<std::string> override_label(const std::string& path) const;

  std::string file_;
  std::map<std::string, std::string> overrides_;  // path -> "<--set path>"
  std::map<std::string, SourceLocation> pinned_;
  std::map<std::string, SourceLocation> seen_;
};

// One value of the document.
struct YamlValue {
  YAML::Node node;
  std::string path;          // "cluster.nic.bandwidth"; "" for the document itself
  SourceLocation where;      // of the value (of its key when the value is empty)
  SourceLocation key_where;  // of its key (where "missing ..." inside it is reported)
};

// A mapping whose keys are checked on construction: no duplicates and, unless `allowed` is
// empty, none outside `allowed`. An empty value (`data:` with nothing after it) is an empty
// section.
class YamlSection {
 public:
  YamlSection(const YamlValue& value, std::vector<std::string> allowed, YamlContext* context);

  const std::string& path() const { return value_.path; }
  const SourceLocation& where() const { return value_.key_where; }
  const YamlValue& value() const { return value_; }
  YamlContext* context() const { return context_; }

  bool has(const std::string& key) const;
  std::optional<YamlValue> get(const std::string& key) const;
  // Throws "missing required key" at the section when absent; `hint` says what it holds.
  YamlValue require(const std::string& key, const std::string& hint) const;
  // Every (key, value) in document order; the key's own YamlValue holds the key scalar.
  std::vector<std::pair<YamlValue, YamlValue>> entries() const;

  // "cluster.nic" for messages ("the top level" for the document).
  std::string display_name() const;

 private:
  std::string child_path(const std::string& key) const;
  YamlValue make_child(const YAML::Node& key, const YAML::Node& value) const;

  YamlValue value_;
  std::vector<std::string> allowed_;
  YamlContext* context_;
};

// Parses a file's one document (`syntax` names the language in messages, "YAML" or "JSON";
// `what` the file, "model file"): UTF-8 checked, a syntax error or a second document an
// InputError at its line and column.
YAML::Node load_document(const std::string& text, const std::string& path, const char* syntax,
                         const std::string& what);

[[noreturn]] void fail(const YamlValue& value, const std::string& message);
[[noreturn]] void fail_at(const SourceLocation& where, const std::string& message);

// The scalar text, or fail("expected <expected>, got a mapping/sequence/nothing").
std::string scalar_text(const YamlValue& value, const std::string& expected);

int64_t as_int(const YamlValue& value, int64_t min, int64_t max = std::numeric_limits<int>::max());
// A plain finite number (no unit) in [min, max]; `min_exclusive` makes it (min, max].
double as_real(const YamlValue& value, double min, bool min_exclusive = false,
               double max = std::numeric_limits<double>::max());
bool as_bool(const YamlValue& value);
std::string as_string(const YamlValue& value);

enum class Sign { kNonNegative, kPositive };
// A quantity with a unit (units.h); bare numbers only when `allow_bare`, except that a bare 0
// is accepted wherever zero is (kNonNegative).
double as_quantity(const YamlValue& value, units::Kind kind, Sign sign, bool allow_bare = false);

template <class E>
E as_enum(const YamlValue& value) {
  std::string text = scalar_text(value, "one of: " + enum_choices<E>());
  if (auto e = enum_from_name<E>(text)) return *e;
  fail(value, "unknown value '" + text + "'; allowed: " + enum_choices<E>() + enum_alias_note<E>());
}

}  // namespace ddpsim
