#include "sim/input/scenario_loader.h"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <memory>

#include "sim/input/overrides.h"
#include "sim/input/plausible_ranges.h"
#include "sim/input/scenario_sections.h"
#include "sim/ledger/assumptions.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/text/input_file.h"
#include "sim/text/utf8.h"
#include "sim/text/yaml_document.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

// `sweep` belongs to `ddpsim sweep` (sim/sweep/sweep_spec.h) and `validation` to `ddpsim
// validate` (sim/validation/validation_case.h), which read them from the same file; a single
// simulation ignores them.
const std::vector<std::string>& top_level_keys() {
  static const std::vector<std::string> keys = {
      "name", "seed",       "cluster",    "model", "training",   "sync",   "compute",
      "data", "stragglers", "simulation", "sweep", "validation", "assumed"};
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

// A name becomes a folder (out/<name>) and a line of the summary: one path component of
// printable characters.
std::string scenario_name(const YamlValue& value) {
  const std::string name = as_string(value);
  std::string bad;
  for (unsigned char c : name) {
    if (c == '/' || c == '\\') bad = std::string("'") + static_cast<char>(c) + "'";
    if (c < 0x20 || c == 0x7f) bad = fmt::format("the control character 0x{:02X}", c);
    if (!bad.empty()) break;
  }
  if (!bad.empty())
    fail(value, "the name holds " + bad +
                    ", but it names the output folder (out/<name>) and is printed: use letters, "
                    "digits, spaces and . - _");
  if (name.empty() || name == "." || name == "..")
    fail(value, "expected a name for the output folder (out/<name>), got '" + name + "'");
  return name;
}

// The default name: the file's stem, with what cannot be in a name (control characters) as '_'.
std::string file_stem(const std::string& path) {
  std::string stem = fs::path(path).stem().string();
  for (char& c : stem)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f || c == '\\') c = '_';
  return stem.empty() || stem == "." || stem == ".." ? std::string("scenario") : stem;
}

// `assumed: [cluster.nic.bandwidth, ...]`: values the writer filled from an assumption (a
// fraction of line rate, a technology table) rather than knew or measured. The assumption
// ledger treats them as defaults with their documented range (docs/assumptions.md).
std::set<std::string> assumed_keys(const YamlValue& value) {
  std::set<std::string> keys;
  if (!value.node.IsDefined() || value.node.IsNull()) return keys;
  if (!value.node.IsSequence())
    fail(value, "expected a list of scenario keys, e.g. [cluster.nic.bandwidth]; allowed: " +
                    assumption_keys());
  for (size_t i = 0; i < value.node.size(); ++i) {
    YamlValue item{value.node[i], value.path + "[" + std::to_string(i) + "]", value.where,
                   value.key_where};
    if (value.node[i].Mark().line >= 0 && !value.where.file.empty() &&
        value.where.file.front() != '<')
      item.where = SourceLocation{value.where.file, value.node[i].Mark().line + 1,
                                  value.node[i].Mark().column + 1};
    std::string key = as_string(item);
    if (key == "training.gradient_dtype") key = "sync.gradient_dtype";  // one input, two names
    const AssumptionRow* row = find_assumption_row(key);
    if (row == nullptr || row->stated_by.empty())
      fail(item, "'" + key + "' is not an uncertain input; allowed: " + assumption_keys());
    keys.insert(key);
  }
  return keys;
}

}  // namespace

std::string as_existing_path(const YamlValue& value, const YamlContext& context) {
  std::string written = as_string(value);
  if (written.empty()) fail(value, "expected a file path, got an empty string");
  fs::path path(written);
  if (path.is_relative() && !context.is_overridden(value.path)) {
    path = fs::path(context.file()).parent_path() / path;
  }
  const std::string looked =
      path.string() != written ? " (looked for '" + path.string() + "')" : std::string();
  if (written.find('\0') != std::string::npos) fail(value, "the file path contains a NUL byte");
  if (auto kind = special_file_kind(path.string()))
    fail(value, "'" + written + "' is " + *kind + ", not a file" + looked);
  std::error_code ec;
  if (!fs::is_regular_file(path, ec)) fail(value, "file not found: '" + written + "'" + looked);
  return path.lexically_normal().string();
}

Scenario parse_scenario_text(const std::string& yaml_text, const std::string& file_name,
                             const std::vector<std::string>& overrides) {
  require_utf8(yaml_text, file_name);
  YamlContext context(file_name);
  YAML::Node root;
  try {
    root = load_one_document(yaml_text, file_name, "scenario file");
  } catch (const YAML::ParserException& e) {
    throw yaml_syntax_error(e, yaml_text, file_name, "YAML syntax error");
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
  if (auto v = top.get("name")) s.name = scenario_name(*v);
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
  // The alpha-beta table, read and checked once here (a broken table is refused at load): the
  // engine builds its collectives from the typed value. After compute: results.json lists its
  // inputs in the order read (scenario, platform file, model file, profile, then this table).
  if (!s.sync.alpha_beta_table.empty())
    s.sync.alpha_beta_file =
        std::make_shared<const AlphaBetaFile>(load_alpha_beta_file(s.sync.alpha_beta_table));
  if (top.has("data")) parse_data(section("data"), &context, &s);
  parse_stragglers(section("stragglers"), &context, &s);
  parse_simulation(section("simulation"), &context, &s);
  require_nic_where_used(top, s);
  note_implausible_values(root, &s);
  if (auto v = top.get("assumed")) s.assumed = assumed_keys(*v);
  for (const std::string& path : context.stated_paths()) s.stated.insert(path);
  return s;
}

Scenario load_scenario(const std::string& path, const std::vector<std::string>& overrides) {
  return parse_scenario_text(read_input_file(path, "scenario", "scenario file"), path, overrides);
}

}  // namespace ddpsim
