#include "sim/validation/validation_case.h"

#include <map>

#include "sim/scenario/yaml_reader.h"
#include "sim/text/input_file.h"
#include "sim/text/yaml_document.h"

namespace ddpsim {
namespace {

struct MetricInfo {
  ValidationMetric metric;
  const char* name;
  std::map<std::string, double> units;  // unit -> factor to the base unit
};

const std::vector<MetricInfo>& metrics() {
  static const std::vector<MetricInfo> m = {
      {ValidationMetric::kThroughput,
       "throughput",
       {{"img/s", 1}, {"seq/s", 1}, {"samples/s", 1}, {"tokens/s", 1}}},
      {ValidationMetric::kIterationTime, "iteration_time", {{"s", 1}, {"ms", 1e-3}}},
      {ValidationMetric::kScalingEfficiency, "scaling_efficiency", {{"%", 1}}},
      {ValidationMetric::kBusBandwidth, "busbw", {{"GB/s", 1e9}}},
      {ValidationMetric::kAllReduceTime, "allreduce_time", {{"us", 1e-6}, {"ms", 1e-3}}},
  };
  return m;
}

const MetricInfo& info(ValidationMetric metric) {
  for (const MetricInfo& m : metrics())
    if (m.metric == metric) return m;
  return metrics().front();
}

std::string metric_choices() {
  std::string out;
  for (const MetricInfo& m : metrics()) out += (out.empty() ? "" : ", ") + std::string(m.name);
  return out;
}

std::string unit_choices(const MetricInfo& m) {
  std::string out;
  for (const auto& [unit, factor] : m.units) out += (out.empty() ? "" : ", ") + unit;
  return out;
}

std::string group_choices() {
  std::string out;
  for (ValidationGroup g : all_groups())
    out += (out.empty() ? "" : ", ") + std::string(group_name(g));
  return out;
}

ValidationCase parse_case(const YamlValue& value, YamlContext* context) {
  if (!value.node.IsMap()) {
    fail(value, "expected a case mapping {id, group, metric, measured, unit}");
  }
  YamlSection section(
      value, {"id", "group", "metric", "measured", "unit", "per_sample", "note", "compare"},
      context);
  ValidationCase c;
  c.id = as_string(section.require("id", "the measurement's case_id in measurements.csv"));
  if (c.id.empty()) fail(section.require("id", ""), "expected a case id, got an empty string");

  const YamlValue group = section.require("group", group_choices());
  const std::string group_text = scalar_text(group, "one of: " + group_choices());
  if (!group_from_name(group_text, &c.group)) {
    fail(group, "unknown group '" + group_text + "'; allowed: " + group_choices());
  }

  const YamlValue metric = section.require("metric", metric_choices());
  const std::string metric_text = scalar_text(metric, "one of: " + metric_choices());
  bool known = false;
  for (const MetricInfo& m : metrics()) {
    if (metric_text == m.name) {
      c.metric = m.metric;
      known = true;
    }
  }
  if (!known) fail(metric, "unknown metric '" + metric_text + "'; allowed: " + metric_choices());

  c.measured =
      as_real(section.require("measured", "the published number, a plain number"), 0, true);
  const YamlValue unit = section.require("unit", unit_choices(info(c.metric)));
  c.unit = as_string(unit);
  if (unit_scale(c.metric, c.unit) == 0) {
    fail(unit, "unit '" + c.unit + "' does not fit metric " + metric_text +
                   "; allowed: " + unit_choices(info(c.metric)));
  }
  if (auto v = section.get("per_sample")) {
    if (c.metric != ValidationMetric::kThroughput) {
      fail(*v, "per_sample applies only to metric throughput");
    }
    c.per_sample = as_real(*v, 0, true);
  }
  if (auto v = section.get("note")) c.note = as_string(*v);
  if (auto v = section.get("compare")) c.compare = as_string(*v);
  return c;
}

}  // namespace

const char* group_name(ValidationGroup group) {
  switch (group) {
    case ValidationGroup::kScaling:
      return "scaling";
    case ValidationGroup::kBucketSize:
      return "bucket-size";
    case ValidationGroup::kDataLoading:
      return "data-loading";
    case ValidationGroup::kCollectives:
      return "collectives";
    case ValidationGroup::kSharding:
      return "sharding";
    case ValidationGroup::kLocal:
      return "local";
  }
  return "scaling";
}

const char* metric_name(ValidationMetric metric) { return info(metric).name; }

bool metric_from_name(const std::string& name, ValidationMetric* metric) {
  for (const MetricInfo& m : metrics()) {
    if (name == m.name) {
      *metric = m.metric;
      return true;
    }
  }
  return false;
}

std::string metric_names() { return metric_choices(); }

bool group_from_name(const std::string& name, ValidationGroup* group) {
  for (ValidationGroup g : all_groups()) {
    if (name == group_name(g)) {
      *group = g;
      return true;
    }
  }
  return false;
}

const std::vector<ValidationGroup>& all_groups() {
  static const std::vector<ValidationGroup> groups = {
      ValidationGroup::kScaling,     ValidationGroup::kBucketSize, ValidationGroup::kDataLoading,
      ValidationGroup::kCollectives, ValidationGroup::kSharding,   ValidationGroup::kLocal};
  return groups;
}

double unit_scale(ValidationMetric metric, const std::string& unit) {
  const MetricInfo& m = info(metric);
  auto it = m.units.find(unit);
  return it == m.units.end() ? 0 : it->second;
}

ValidationSpec parse_validation_spec(const std::string& yaml_text, const std::string& file_name) {
  YamlContext context(file_name);
  YAML::Node root;
  try {
    root = load_one_document(yaml_text, file_name, "validation scenario");
  } catch (const YAML::ParserException& e) {
    throw yaml_syntax_error(e, yaml_text, file_name, "YAML syntax error");
  }
  const SourceLocation start{file_name, 1, 1};
  if (!root.IsMap()) fail_at(start, "a validation scenario is a mapping with a validation section");
  YamlValue document{root, "", context.locate(root, "", start), start};
  YamlSection top(document, {}, &context);  // the scenario loader checks the other sections
  YamlSection section(
      top.require("validation",
                  "source, calibration, cases: [{id, group, metric, measured, unit}]"),
      {"source", "calibration", "pending", "cases"}, &context);

  ValidationSpec spec;
  spec.file = file_name;
  spec.source = as_string(section.require("source", "where the measurements were published"));
  if (auto v = section.get("calibration")) spec.calibration = as_string(*v);
  if (auto v = section.get("pending")) spec.pending = as_string(*v);
  const YamlValue cases = section.require("cases", "a list of {id, group, metric, measured, unit}");
  if (!cases.node.IsSequence() || cases.node.size() == 0) {
    fail(cases, "expected a non-empty list of cases {id, group, metric, measured, unit}");
  }
  int index = 0;
  for (const YAML::Node& node : cases.node) {
    YamlValue item{node, cases.path + "[" + std::to_string(index++) + "]", {}, cases.where};
    item.where = context.locate(node, item.path, cases.where);
    item.key_where = item.where;
    spec.cases.push_back(parse_case(item, &context));
  }
  return spec;
}

ValidationSpec read_validation_spec(const std::string& path) {
  return parse_validation_spec(read_regular_file(path, "validation scenario"), path);
}

}  // namespace ddpsim
