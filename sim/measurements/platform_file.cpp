#include "sim/measurements/platform_file.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <set>

#include "sim/measurements/link_parameters.h"
#include "sim/output/atomic_file.h"
#include "sim/scenario/gpu_aliases.h"
#include "sim/scenario/yaml_reader.h"
#include "sim/text/input_file.h"
#include "sim/text/units.h"
#include "sim/text/yaml_document.h"

namespace ddpsim {
namespace {

constexpr int kFormatVersion = 1;

YamlValue item_of(const YamlValue& list, const YAML::Node& node, size_t index,
                  const YamlContext& context) {
  YamlValue item{node, list.path + "[" + std::to_string(index) + "]", {}, list.where};
  item.where = context.locate(node, item.path, list.where);
  item.key_where = item.where;
  return item;
}

FittedParameter read_parameter(const YamlValue& value, YamlContext* context) {
  YamlSection s(value,
                {"parameter", "value", "scenario_value", "log", "gpus", "nodes", "device", "sizes",
                 "max_error", "flag"},
                context);
  FittedParameter p;
  const YamlValue name = s.require("parameter", "a link parameter: " + link_parameter_names());
  p.parameter = as_string(name);
  const LinkParameter* known = find_link_parameter(p.parameter);
  if (known == nullptr)
    fail(name, "unknown link parameter '" + p.parameter + "'; allowed: " + link_parameter_names());
  const bool bandwidth = known->kind == LinkParameterKind::kBandwidth;
  const units::Kind kind = bandwidth ? units::Kind::kBandwidth : units::Kind::kDuration;
  const Sign sign = bandwidth ? Sign::kPositive : Sign::kNonNegative;
  p.value = as_quantity(
      s.require("value", bandwidth ? "a bandwidth, e.g. 23.1GB/s" : "a duration, e.g. 2.5us"), kind,
      sign, /*allow_bare=*/true);
  if (auto v = s.get("scenario_value"))
    p.scenario_value = as_quantity(*v, kind, Sign::kNonNegative, /*allow_bare=*/true);
  if (auto v = s.get("log")) p.log = as_string(*v);
  if (auto v = s.get("gpus")) p.gpus = static_cast<int>(as_int(*v, 0));
  if (auto v = s.get("nodes")) p.nodes = static_cast<int>(as_int(*v, 0));
  if (auto v = s.get("device")) p.device = as_string(*v);
  if (auto v = s.get("sizes")) {
    if (!v->node.IsSequence() || v->node.size() != 2)
      fail(*v, "expected [smallest, largest] bytes the value was fitted on");
    p.min_bytes = as_quantity(item_of(*v, v->node[0], 0, *context), units::Kind::kBytes,
                              Sign::kNonNegative, true);
    p.max_bytes = as_quantity(item_of(*v, v->node[1], 1, *context), units::Kind::kBytes,
                              Sign::kNonNegative, true);
  }
  if (auto v = s.get("max_error")) p.max_error = as_real(*v, 0);
  if (auto v = s.get("flag")) p.flag = as_string(*v);
  return p;
}

}  // namespace

PlatformCalibration parse_platform_calibration(const std::string& text, const std::string& path) {
  YAML::Node root;
  try {
    root = load_one_document(text, path, "platform calibration");
  } catch (const YAML::ParserException& e) {
    throw yaml_syntax_error(e, text, path, "YAML syntax error");
  }
  YamlContext context(path);
  const SourceLocation start{path, 1, 1};
  const YamlValue document{root, "", context.locate(root, "", start), start};
  if (!root.IsMap())
    fail(document,
         "a platform calibration is a mapping with format, scenario and parameters "
         "(written by ddpsim calibrate --fit-platform)");
  YamlSection top(document, {"format", "scenario", "parameters"}, &context);
  PlatformCalibration c;
  c.source = path;
  const YamlValue format = top.require("format", "1");
  if (as_int(format, 1) != kFormatVersion)
    fail(format, fmt::format("unknown format {}; this ddpsim reads format {}", format.node.Scalar(),
                             kFormatVersion));
  if (auto v = top.get("scenario")) c.scenario = as_string(*v);
  const YamlValue list = top.require("parameters", "a list of {parameter, value, ...}");
  if (!list.node.IsSequence() || list.node.size() == 0)
    fail(list, "expected a non-empty list of {parameter: NAME, value: V, ...}");
  std::set<std::string> seen;
  for (size_t i = 0; i < list.node.size(); ++i) {
    const YamlValue item = item_of(list, list.node[i], i, context);
    FittedParameter p = read_parameter(item, &context);
    if (!seen.insert(p.parameter).second)
      fail(item, "parameter " + p.parameter + " given twice; keep one");
    c.parameters.push_back(std::move(p));
  }
  return c;
}

PlatformCalibration load_platform_calibration(const std::string& path) {
  return parse_platform_calibration(
      read_input_file(path, "platform_calibration", "platform calibration"), path);
}

std::string platform_calibration_to_yaml(const PlatformCalibration& c) {
  YAML::Emitter out;
  // yaml-cpp writes DEL (0x7f) raw, which YAML does not allow and our reader refuses; escaping
  // everything above 0x7e keeps names taken from logs (a GPU name, a path) readable back.
  out.SetOutputCharset(YAML::EscapeNonAscii);
  out << YAML::Comment(
      "ddpsim platform calibration (ddpsim calibrate --fit-platform): link parameters fitted\n"
      "through the simulator so that the simulated nccl-tests sweep matches the measured logs.\n"
      "Use it with `cluster.calibration: <this file>`. Values are SI (bytes/s, seconds).");
  out << YAML::BeginMap;
  out << YAML::Key << "format" << YAML::Value << kFormatVersion;
  out << YAML::Key << "scenario" << YAML::Value << YAML::DoubleQuoted << c.scenario;
  out << YAML::Key << "parameters" << YAML::Value << YAML::BeginSeq;
  auto num = [](double v) { return fmt::format("{}", v); };
  for (const FittedParameter& p : c.parameters) {
    const LinkParameter* known = find_link_parameter(p.parameter);
    const bool bandwidth = known != nullptr && known->kind == LinkParameterKind::kBandwidth;
    auto human = [&](double v) {
      return bandwidth ? units::format_bandwidth(v) : units::format_duration(v);
    };
    out << YAML::BeginMap;
    out << YAML::Key << "parameter" << YAML::Value << p.parameter;
    out << YAML::Key << "value" << YAML::Value << num(p.value) << YAML::Comment(human(p.value));
    out << YAML::Key << "scenario_value" << YAML::Value << num(p.scenario_value)
        << YAML::Comment(human(p.scenario_value));
    out << YAML::Key << "log" << YAML::Value << YAML::DoubleQuoted << p.log;
    out << YAML::Key << "gpus" << YAML::Value << p.gpus;
    out << YAML::Key << "nodes" << YAML::Value << p.nodes;
    out << YAML::Key << "device" << YAML::Value << YAML::DoubleQuoted << p.device;
    out << YAML::Key << "sizes" << YAML::Value << YAML::Flow << YAML::BeginSeq << num(p.min_bytes)
        << num(p.max_bytes) << YAML::EndSeq;
    out << YAML::Key << "max_error" << YAML::Value << num(p.max_error);
    out << YAML::Key << "flag" << YAML::Value << YAML::DoubleQuoted << p.flag;
    out << YAML::EndMap;
  }
  out << YAML::EndSeq << YAML::EndMap;
  return std::string(out.c_str()) + "\n";
}

void write_platform_calibration(const PlatformCalibration& calibration, const std::string& path) {
  write_file_atomic(path, platform_calibration_to_yaml(calibration));
}

std::vector<std::string> apply_platform_calibration(const PlatformCalibration& calibration,
                                                    ClusterSpec* cluster,
                                                    std::vector<std::string>* warnings) {
  std::vector<std::string> notes;
  std::set<std::string> devices;
  for (const FittedParameter& p : calibration.parameters) {
    double* field = link_parameter(cluster, p.parameter);
    if (field == nullptr) continue;  // parse_platform_calibration accepts known names only
    *field = p.value;
    const LinkParameter* known = find_link_parameter(p.parameter);
    const std::string value = known->kind == LinkParameterKind::kBandwidth
                                  ? units::format_bandwidth(p.value)
                                  : units::format_duration(p.value);
    std::string note = p.parameter + " = " + value;
    if (p.gpus > 0)
      note += fmt::format(", fitted on {} GPUs ({} node{}{})", p.gpus, p.nodes,
                          p.nodes == 1 ? "" : "s", p.device.empty() ? "" : ", " + p.device);
    if (!p.flag.empty()) note += " [" + p.flag + "]";
    notes.push_back(note);
    if (!p.device.empty()) devices.insert(p.device);
  }
  if (warnings != nullptr) {
    const std::string used = gpu_family(cluster->gpu.name);
    for (const std::string& d : devices) {
      const std::string measured = gpu_family(d);
      if (measured.empty() || used.empty() ? d != cluster->gpu.name : measured != used)
        warnings->push_back("the link parameters of " + calibration.source + " were fitted on " +
                            d + " and are used for " + cluster->gpu.name +
                            ": GPU type changes what NCCL achieves on the same links");
    }
  }
  return notes;
}

}  // namespace ddpsim
