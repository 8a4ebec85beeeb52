#include "sim/sweep/sweep_spec.h"

#include <yaml-cpp/yaml.h>

#include <cstdint>

#include "sim/text/yaml_document.h"

namespace ddpsim {
namespace {

SourceLocation mark_of(const YAML::Node& node, const std::string& file) {
  const YAML::Mark mark = node.Mark();
  if (mark.is_null()) return SourceLocation{file, 0, 0};
  return SourceLocation{file, mark.line + 1, mark.column + 1};
}

// The same text for the same value however it was written (`25MiB`, "25MiB", [1,2] or [1, 2]),
// so a point's overrides, CSV cells and messages agree between the file and the command line.
std::string canonical_text(const YAML::Node& node) {
  YAML::Emitter out;
  out << YAML::Flow << node;
  return out.c_str();
}

const char* describe_kind(const YAML::Node& node) {
  if (node.IsMap()) return "a mapping";
  if (node.IsSequence()) return "a list";
  if (node.IsNull()) return "nothing";
  return "a single value";
}

void check_key(const std::string& key, const SourceLocation& where) {
  if (key.empty())
    throw InputError(where,
                     "empty sweep key: expected a dotted scenario path "
                     "such as cluster.nodes");
  size_t start = 0;
  for (;;) {
    const size_t dot = key.find('.', start);
    if (key.substr(start, dot == std::string::npos ? dot : dot - start).empty()) {
      throw InputError(where, "empty part in sweep key '" + key +
                                  "': expected a dotted scenario path such as cluster.nodes");
    }
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
}

void add_value(SweepAxis* axis, SweepValue value) {
  for (const SweepValue& seen : axis->values) {
    if (seen.text == value.text) {
      std::string first =
          seen.where.line > 0 ? " (first at line " + std::to_string(seen.where.line) + ")" : "";
      throw InputError(value.where, "value '" + value.text + "' appears twice in the sweep of " +
                                        axis->key + first);
    }
  }
  axis->values.push_back(std::move(value));
}

// Splits at commas that are not inside [], {} or quotes.
std::vector<std::string> split_top_level(const std::string& text) {
  std::vector<std::string> parts;
  std::string current;
  int depth = 0;
  char quote = 0;
  for (char c : text) {
    if (quote) {
      if (c == quote) quote = 0;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '[' || c == '{') {
      ++depth;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ',' && depth == 0) {
      parts.push_back(current);
      current.clear();
      continue;
    }
    current += c;
  }
  parts.push_back(current);
  return parts;
}

std::string trim(const std::string& s) {
  const size_t first = s.find_first_not_of(" \t");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t") - first + 1);
}

}  // namespace

size_t SweepSpec::point_count() const {
  if (axes.empty()) return 0;
  size_t count = 1;
  for (const SweepAxis& axis : axes) {
    const size_t n = axis.values.size();
    // Saturate: 16 axes of 16 values wrapped around to 0 points.
    if (n != 0 && count > SIZE_MAX / n) return SIZE_MAX;
    count *= n;
  }
  return count;
}

SweepSpec parse_sweep_section(const std::string& yaml_text, const std::string& file_name) {
  YAML::Node root;
  try {
    root = load_one_document(yaml_text, file_name, "scenario file");
  } catch (const YAML::ParserException& e) {
    throw yaml_syntax_error(e, yaml_text, file_name, "YAML syntax error");
  }
  SweepSpec spec;
  if (!root.IsMap()) return spec;  // the scenario loader reports what is wrong with it
  YAML::Node section;
  for (auto it = root.begin(); it != root.end(); ++it) {
    if (it->first.IsScalar() && it->first.Scalar() == "sweep") section.reset(it->second);
  }
  if (!section.IsDefined() || section.IsNull()) return spec;
  if (!section.IsMap()) {
    throw InputError(mark_of(section, file_name),
                     std::string("sweep: expected a mapping of scenario paths to lists of values "
                                 "(e.g. cluster.nodes: [1, 2, 4]), got ") +
                         describe_kind(section));
  }
  for (auto it = section.begin(); it != section.end(); ++it) {
    const SourceLocation key_where = mark_of(it->first, file_name);
    if (!it->first.IsScalar()) {
      throw InputError(key_where,
                       "sweep keys are dotted scenario paths such as cluster.nodes, "
                       "got " +
                           std::string(describe_kind(it->first)));
    }
    SweepAxis axis;
    axis.key = it->first.Scalar();
    axis.key_where = key_where;
    check_key(axis.key, key_where);
    for (const SweepAxis& seen : spec.axes) {
      if (seen.key == axis.key) {
        throw InputError(key_where, "sweep key '" + axis.key + "' given twice (first at line " +
                                        std::to_string(seen.key_where.line) + ")");
      }
    }
    const YAML::Node values = it->second;  // a copy: the iterator's pair is a temporary
    if (!values.IsSequence() || values.size() == 0) {
      const SourceLocation where = values.IsNull() ? key_where : mark_of(values, file_name);
      throw InputError(where, "sweep of " + axis.key +
                                  ": expected a non-empty list of values, e.g. [1, 2, 4], got " +
                                  (values.IsSequence() ? "an empty list" : describe_kind(values)));
    }
    for (const YAML::Node& value : values) {
      if (value.IsNull()) {
        throw InputError(mark_of(value, file_name),
                         "sweep of " + axis.key + ": empty value in the list");
      }
      add_value(&axis, SweepValue{canonical_text(value), mark_of(value, file_name)});
    }
    spec.axes.push_back(std::move(axis));
  }
  return spec;
}

SweepAxis parse_sweep_option(const std::string& text) {
  const size_t equals = text.find('=');
  const std::string key = trim(text.substr(0, equals));
  SweepAxis axis;
  axis.key = key;
  axis.key_where = SourceLocation{"<--sweep " + key + ">", 0, 0};
  if (equals == std::string::npos) {
    throw InputError(SourceLocation{"<--sweep " + text + ">", 0, 0},
                     "expected key.path=v1,v2,... (e.g. cluster.nodes=1,2,4), got '" + text + "'");
  }
  check_key(key, axis.key_where);
  for (const std::string& raw : split_top_level(text.substr(equals + 1))) {
    const std::string written = trim(raw);
    if (written.empty()) {
      throw InputError(axis.key_where,
                       "empty value in '" + text + "': expected key.path=v1,v2,...");
    }
    YAML::Node value;
    try {
      value = load_one_value(written, axis.key_where);
    } catch (const YAML::Exception& e) {
      throw InputError(axis.key_where, "cannot read the value '" + written + "' as YAML: " + e.msg);
    }
    add_value(&axis, SweepValue{canonical_text(value), axis.key_where});
  }
  return axis;
}

void add_axis(SweepSpec* spec, SweepAxis axis) {
  for (SweepAxis& existing : spec->axes) {
    if (existing.key == axis.key) {
      existing = std::move(axis);
      return;
    }
  }
  spec->axes.push_back(std::move(axis));
}

std::vector<SweepPoint> expand_sweep(const SweepSpec& spec) {
  std::vector<SweepPoint> points;
  const size_t count = spec.point_count();
  points.reserve(count);
  for (size_t index = 0; index < count; ++index) {
    SweepPoint point;
    point.index = index;
    point.value_index.resize(spec.axes.size());
    // Mixed-radix digits of the index, the last axis being the least significant.
    size_t rest = index;
    for (size_t a = spec.axes.size(); a-- > 0;) {
      point.value_index[a] = rest % spec.axes[a].values.size();
      rest /= spec.axes[a].values.size();
    }
    for (size_t a = 0; a < spec.axes.size(); ++a) {
      point.overrides.push_back(spec.axes[a].key + "=" +
                                spec.axes[a].values[point.value_index[a]].text);
    }
    points.push_back(std::move(point));
  }
  return points;
}

std::string describe_point(const SweepPoint& point) {
  std::string out;
  for (const std::string& o : point.overrides) out += (out.empty() ? "" : ", ") + o;
  return out;
}

}  // namespace ddpsim
