#include "sim/scenario/scenario_loader.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/scenario/overrides.h"
#include "sim/scenario/scenario_sections.h"
#include "sim/util/utf8.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

// `sweep` belongs to `ddpsim sweep` (sim/sweep/sweep_spec.h) and `validation` to `ddpsim
// validate` (sim/validation/validation_case.h), which read them from the same file; a single
// simulation ignores them.
const std::vector<std::string>& top_level_keys() {
  static const std::vector<std::string> keys = {"name",       "seed",  "cluster",   "model",
                                                "training",   "sync",  "compute",   "data",
                                                "stragglers", "sweep", "validation"};
  return keys;
}

// NICs carry inter-node gradients, dedicated parameter-server traffic and shared-storage reads;
// a scenario that uses any of them must say what its NICs are.
void require_nic_where_used(const YamlSection& top, const Scenario& s) {
  if (s.cluster.nic.bandwidth > 0) return;
  std::string reason;
  if (s.cluster.nodes > 1) {
    reason = "the cluster has " + std::to_string(s.cluster.nodes) + " nodes";
  } else if (s.sync.strategy == SyncStrategy::kParameterServer &&
             s.sync.ps.placement != PsPlacement::kColocated && s.sync.ps.servers > 0) {
    reason = "dedicated parameter servers are reached over the network";
  } else if (!s.data.synthetic && s.data.storage == StorageKind::kShared) {
    reason = "shared storage is read over the network";
  } else {
    return;
  }
  SourceLocation where = top.get("cluster")->key_where;
  throw InputError(where, "missing required key 'nic' in cluster (" + reason +
                              "): {count: 8, bandwidth: 200Gbps, latency: 2us}");
}

std::string file_stem(const std::string& path) {
  std::string stem = fs::path(path).stem().string();
  return stem.empty() ? std::string("scenario") : stem;
}

}  // namespace

std::string as_existing_path(const YamlValue& value, const YamlContext& context) {
  std::string written = as_string(value);
  if (written.empty()) fail(value, "expected a file path, got an empty string");
  fs::path path(written);
  if (path.is_relative() && !context.is_overridden(value.path)) {
    path = fs::path(context.file()).parent_path() / path;
  }
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) {
    fail(value, "file not found: '" + written + "'" +
                    (path.string() != written ? " (looked for '" + path.string() + "')" : ""));
  }
  return path.lexically_normal().string();
}

Scenario parse_scenario_text(const std::string& yaml_text, const std::string& file_name,
                             const std::vector<std::string>& overrides) {
  require_utf8(yaml_text, file_name);
  YamlContext context(file_name);
  YAML::Node root;
  try {
    root = YAML::Load(yaml_text);
  } catch (const YAML::ParserException& e) {
    throw InputError(SourceLocation{file_name, e.mark.line + 1, e.mark.column + 1},
                     "YAML syntax error: " + e.msg);
  }
  apply_overrides(&root, overrides, &context);

  const SourceLocation start{file_name, 1, 1};
  YamlValue document{root, "", context.locate(root, "", start), start};
  if (root.IsDefined() && !root.IsNull() && !root.IsMap()) {
    fail_at(document.where,
            "a scenario is a mapping of sections (cluster, model, training, "
            "sync, compute, data, stragglers), got " +
                std::string(root.IsSequence() ? "a sequence" : "a scalar"));
  }
  YamlSection top(document, top_level_keys(), &context);

  Scenario s;
  s.source = file_name;
  s.name = file_stem(file_name);
  if (auto v = top.get("name")) s.name = as_string(*v);
  if (auto v = top.get("seed")) s.seed = static_cast<uint64_t>(as_int(*v, 0, INT64_MAX));

  parse_cluster(top.require("cluster",
                            "nodes, gpus_per_node, gpu, intra_node, pcie, nic, "
                            "fabric"),
                &context, &s);
  parse_model(top.require("model", "name: a model zoo key such as resnet50"), &context, &s);
  // Optional sections still go through their parser: an empty one applies the defaults and the
  // rules that hold for defaults (e.g. data's "real data needs storage").
  YamlValue absent{YAML::Node(), "", top.where(), top.where()};
  auto section = [&](const char* key) {
    if (auto v = top.get(key)) return *v;
    YamlValue empty = absent;
    empty.path = key;
    return empty;
  };
  parse_training(section("training"), &context, &s);
  parse_sync(section("sync"), &context, &s);
  parse_compute(section("compute"), &context, &s);
  if (top.has("data")) parse_data(section("data"), &context, &s);
  parse_stragglers(section("stragglers"), &context, &s);
  require_nic_where_used(top, s);
  return s;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    throw InputError(SourceLocation{path, 0, 0}, "is a folder, not a scenario file");
  }
  if (!in) {
    throw InputError(SourceLocation{path, 0, 0},
                     std::string("cannot read scenario file: ") + std::strerror(errno));
  }
  std::ostringstream text;
  text << in.rdbuf();
  return parse_scenario_text(text.str(), path, overrides);
}

}  // namespace ddpsim
