// Command-line overrides: `--set cluster.nodes=8`, `--set sync.bucket_cap=5MB`,
// `--set model.layers=[1024,10]`. The value is read as YAML (scalar or flow collection) and
// replaces the value at the dotted path; missing sections on the way are created. Whether the
// path names a real key is checked by the loader like any key in the file, and every error about
// an overridden value is reported at "<--set path>". model.name, model.file and model.hf_config
// are one value, the model: setting one removes the others (the later source wins).
#pragma once

#include <yaml-cpp/yaml.h>

#include <string>
#include <vector>

#include "sim/scenario/yaml_reader.h"

namespace ddpsim {

struct Override {
  std::vector<std::string> path;  // {"cluster", "nodes"}
  std::string dotted;             // "cluster.nodes"
  YAML::Node value;
};

// Splits "a.b.c=value" and parses the value. Throws InputError at "<--set ...>" when malformed.
Override parse_override(const std::string& text);

// Applies overrides in order (a later one wins) to `root`, which may be null (empty document),
// and tells `context` which paths they supplied.
void apply_overrides(YAML::Node* root, const std::vector<std::string>& overrides,
                     YamlContext* context);

}  // namespace ddpsim
