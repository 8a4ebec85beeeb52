// Reads a scenario YAML file into the typed Scenario (scenario.h): strict keys, units and ranges,
// command-line overrides, defaults from scenario.h, and every rule of the scenario reference
// (docs/scenario-reference.md). Any problem is an InputError at file:line:column (or
// "<--set key.path>" for an override) naming what was expected and the allowed values.
#pragma once

#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ddpsim {

// Loads `path`, applies `overrides` ("cluster.nodes=4", "sync.bucket_cap=5MB") in order, and
// validates. A file that cannot be read is an InputError located at the path.
Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides = {});

// The same from text; `file_name` is used in messages, as Scenario::source, for the default
// name (its stem), and as the folder that relative paths in the scenario are relative to.
Scenario parse_scenario_text(const std::string& yaml_text, const std::string& file_name,
                             const std::vector<std::string>& overrides = {});

}  // namespace ddpsim
