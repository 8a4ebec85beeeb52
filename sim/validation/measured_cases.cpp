#include "sim/validation/measured_cases.h"

#include <filesystem>

#include "sim/scenario/yaml_reader.h"
#include "sim/text/input_file.h"
#include "sim/text/yaml_document.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

MeasuredCase parse_case(const YamlValue& value, const fs::path& folder, YamlContext* context) {
  if (!value.node.IsMap()) fail(value, "expected a case {id, scenario, metric, measured, unit}");
  YamlSection section(value, {"id", "scenario", "metric", "measured", "unit", "load", "note"},
                      context);
  MeasuredCase m;
  ValidationCase& c = m.c;
  c.group = ValidationGroup::kLocal;
  c.id = as_string(section.require("id", "a name for the point"));
  if (c.id.empty()) fail(section.require("id", ""), "expected a case id, got an empty string");

  const YamlValue scenario = section.require("scenario", "the scenario file of the point");
  const std::string relative = as_string(scenario);
  m.scenario = (folder / relative).string();
  std::error_code ec;
  if (relative.empty() || !fs::is_regular_file(m.scenario, ec)) {
    fail(scenario, "scenario '" + relative + "' not found (looked for " + m.scenario + ")");
  }

  const YamlValue metric = section.require("metric", metric_names());
  const std::string metric_text = scalar_text(metric, "one of: " + metric_names());
  if (!metric_from_name(metric_text, &c.metric)) {
    fail(metric, "unknown metric '" + metric_text + "'; allowed: " + metric_names());
  }
  c.measured = as_real(section.require("measured", "the measured value, a plain number"), 0, true);
  const YamlValue unit = section.require("unit", "the measured value's unit");
  c.unit = as_string(unit);
  if (unit_scale(c.metric, c.unit) == 0) {
    fail(unit, "unit '" + c.unit + "' does not fit metric " + metric_text);
  }
  if (auto v = section.get("load")) m.load = as_real(*v, 0);
  if (auto v = section.get("note")) c.note = as_string(*v);
  return m;
}

}  // namespace

MeasuredFile parse_measured_file(const std::string& text, const std::string& file_name) {
  YamlContext context(file_name);
  const YAML::Node root = load_document(text, file_name, "YAML", "measurement file");
  const SourceLocation start{file_name, 1, 1};
  if (!root.IsMap()) fail_at(start, "a measurement file is a mapping {format, source, cases}");
  const YamlValue document{root, "", context.locate(root, "", start), start};
  // busy_load and points are the launcher's provenance: allowed, not read.
  const YamlSection top(document, {"format", "source", "cases", "busy_load", "points"}, &context);
  const YamlValue format = top.require("format", "1");
  if (scalar_text(format, "1") != "1") fail(format, "unknown format; this ddpsim reads 1");

  MeasuredFile file;
  file.file = file_name;
  file.source = as_string(top.require("source", "where and when the points were measured"));
  const YamlValue cases = top.require("cases", "a list of {id, scenario, metric, measured, unit}");
  if (!cases.node.IsSequence() || cases.node.size() == 0) {
    fail(cases, "expected a non-empty list of cases {id, scenario, metric, measured, unit}");
  }
  const fs::path folder = fs::path(file_name).parent_path();
  int index = 0;
  for (const YAML::Node& node : cases.node) {
    YamlValue item{node, cases.path + "[" + std::to_string(index++) + "]", {}, cases.where};
    item.where = context.locate(node, item.path, cases.where);
    item.key_where = item.where;
    file.cases.push_back(parse_case(item, folder, &context));
  }
  return file;
}

MeasuredFile read_measured_file(const std::string& path) {
  return parse_measured_file(read_regular_file(path, "measurement file"), path);
}

}  // namespace ddpsim
