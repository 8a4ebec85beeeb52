#include "sim/sweep/sweep_plan.h"

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <regex>
#include <set>

#include "sim/input/scenario_loader.h"
#include "sim/model/model_zoo.h"
#include "sim/scenario/scenario_json.h"
#include "sim/text/input_file.h"

namespace ddpsim {
namespace {

uint64_t fnv1a64(const std::string& text) {
  uint64_t hash = 1469598103934665603ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 1099511628211ull;
  }
  return hash;
}

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

// Errors about the path itself (rather than the value) belong at the sweep key.
bool is_key_error(const std::string& message) {
  return starts_with(message, "unknown key") || starts_with(message, "cannot set") ||
         starts_with(message, "empty key") || starts_with(message, "keys in");
}

// The loader reports a value that came from an override at "<--set key>". For a swept key that
// is where the sweep wrote it (or its key); anything else keeps its place and names the point.
//
// An unknown key is matched by the path the message names: when one override created a section
// ("sync") the loader labels everything below it with that override, even a sibling key that a
// different axis added.
[[noreturn]] void relocate(const InputError& e, const SweepSpec& spec, const SweepPoint& point) {
  const std::string& file = e.where().file;
  std::string unknown_path;
  static const std::regex unknown(R"(^unknown key '([^']*)' in ([^;]*);)");
  std::smatch m;
  if (std::regex_search(e.message(), m, unknown)) {
    unknown_path = m[2] == "the top level" ? std::string(m[1]) : m[2].str() + "." + m[1].str();
  }
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    const SweepAxis& axis = spec.axes[a];
    if (!unknown_path.empty()) {
      if (axis.key == unknown_path || starts_with(axis.key, unknown_path + ".")) {
        throw InputError(axis.key_where, "sweep of " + axis.key + ": " + e.message());
      }
      if (starts_with(unknown_path, axis.key + ".")) {  // inside a swept mapping value
        throw InputError(axis.values[point.value_index[a]].where,
                         "sweep of " + axis.key + ": " + e.message());
      }
      continue;
    }
    if (file != "<--set " + axis.key + ">") continue;
    const SourceLocation& where =
        is_key_error(e.message()) ? axis.key_where : axis.values[point.value_index[a]].where;
    const bool names_key = starts_with(e.message(), axis.key);
    throw InputError(where, names_key ? e.message() : "sweep of " + axis.key + ": " + e.message());
  }
  throw InputError(e.where(), e.message() + " (in sweep point " + std::to_string(point.index) +
                                  ": " + describe_point(point) + ")");
}

}  // namespace

PointKey PlannedPoint::key(const SweepSpec& spec) const {
  PointKey key;
  key.index = point.index;
  key.id = id;
  for (size_t a = 0; a < spec.axes.size(); ++a) {
    key.swept_values.push_back(spec.axes[a].values[point.value_index[a]].text);
  }
  return key;
}

std::vector<std::string> SweepPlan::swept_keys() const {
  std::vector<std::string> keys;
  for (const SweepAxis& axis : spec.axes) keys.push_back(axis.key);
  return keys;
}

std::string point_id(const Scenario& scenario, const std::string& options_fingerprint) {
  nlohmann::json resolved = scenario_to_json(scenario);
  resolved.erase("source");
  char hex[17];
  std::snprintf(
      hex, sizeof hex, "%016llx",
      static_cast<unsigned long long>(fnv1a64(resolved.dump() + "\n" + options_fingerprint)));
  return hex;
}

namespace {

SweepSpec sweep_spec_of(const std::string& text, const std::string& scenario_file,
                        const std::vector<std::string>& sweep_options) {
  SweepSpec spec = parse_sweep_section(text, scenario_file);
  for (const std::string& option : sweep_options) add_axis(&spec, parse_sweep_option(option));
  if (spec.axes.empty()) {
    throw InputError(SourceLocation{scenario_file, 0, 0},
                     "nothing to sweep: add a top-level `sweep:` mapping (e.g. sweep: "
                     "{cluster.nodes: [1, 2, 4]}) or --sweep cluster.nodes=1,2,4");
  }
  return spec;
}

}  // namespace

SweepSpec read_sweep_spec(const std::string& scenario_file,
                          const std::vector<std::string>& sweep_options) {
  return sweep_spec_of(read_input_file(scenario_file, "scenario", "scenario file"), scenario_file,
                       sweep_options);
}

SweepPlan plan_sweep(const std::string& scenario_file,
                     const std::vector<std::string>& set_overrides,
                     const std::vector<std::string>& sweep_options,
                     const std::string& options_fingerprint,
                     const std::function<bool(size_t)>& keep) {
  SweepPlan plan;
  plan.scenario_file = scenario_file;
  plan.set_overrides = set_overrides;
  const std::string text = read_input_file(scenario_file, "scenario", "scenario file");
  plan.spec = sweep_spec_of(text, scenario_file, sweep_options);

  std::set<std::string> models_checked;
  if (plan.spec.point_count() > kMaxSweepPoints) {
    double points = 1;
    for (const SweepAxis& axis : plan.spec.axes) points *= static_cast<double>(axis.values.size());
    char count[32];
    std::snprintf(count, sizeof count, points < 1e15 ? "%.0f" : "%.3g", points);
    throw InputError(plan.spec.axes.front().key_where,
                     std::string("the sweep has ") + count + " points (the product of its " +
                         std::to_string(plan.spec.axes.size()) + " axes' sizes), more than the " +
                         std::to_string(kMaxSweepPoints) +
                         " one sweep may have: sweep fewer values, or run several sweeps");
  }
  for (SweepPoint& point : expand_sweep(plan.spec)) {
    if (keep && !keep(point.index)) continue;
    std::vector<std::string> overrides = set_overrides;
    overrides.insert(overrides.end(), point.overrides.begin(), point.overrides.end());
    PlannedPoint planned;
    try {
      planned.scenario = parse_scenario_text(text, scenario_file, overrides);
    } catch (const InputError& e) {
      relocate(e, plan.spec, point);
    }
    // Locations the scenario keeps for errors found later (the resource check, the run) name
    // the sweep value, not a --set the user did not give.
    for (size_t a = 0; a < plan.spec.axes.size(); ++a) {
      const SweepAxis& axis = plan.spec.axes[a];
      const SourceLocation& value = axis.values[point.value_index[a]].where;
      for (SourceLocation* kept :
           {&planned.scenario.simulation.scope_where, &planned.scenario.sync.alpha_beta_where})
        if (kept->file == "<--set " + axis.key + ">") *kept = value;
    }
    const ModelSpec& m = planned.scenario.model;
    std::string model_key =
        m.name + "/" + m.file + "/" + m.hf_config + "/" + std::to_string(m.sequence_length);
    for (int width : m.mlp_layers) model_key += "/" + std::to_string(width);
    if (models_checked.insert(model_key).second) {
      Model model;
      std::string error;
      if (!build_model(m, &model, &error)) {
        relocate(InputError(SourceLocation{scenario_file, 0, 0}, error), plan.spec, point);
      }
    }
    planned.id = point_id(planned.scenario, options_fingerprint);
    planned.point = std::move(point);
    plan.points.push_back(std::move(planned));
  }
  return plan;
}

}  // namespace ddpsim
