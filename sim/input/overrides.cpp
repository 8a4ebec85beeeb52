#include "sim/input/overrides.h"

#include <algorithm>
#include <iterator>

#include "sim/text/utf8.h"
#include "sim/text/yaml_document.h"

namespace ddpsim {
namespace {

SourceLocation override_location(const std::string& what) {
  return SourceLocation{"<--set " + what + ">", 0, 0};
}

}  // namespace

Override parse_override(const std::string& text) {
  size_t equals = text.find('=');
  if (invalid_utf8_offset(text)) {
    throw InputError(override_location(text.substr(0, equals)),
                     "the override is not valid UTF-8 (results are JSON, which can carry no "
                     "other encoding)");
  }
  if (equals == std::string::npos) {
    throw InputError(override_location(text),
                     "expected key.path=value (e.g. cluster.nodes=8), got '" + text +
                         "'; did you mean --set " + text + "=VALUE?");
  }
  Override result;
  result.dotted = text.substr(0, equals);
  std::string value = text.substr(equals + 1);
  size_t start = 0;
  while (true) {
    size_t dot = result.dotted.find('.', start);
    std::string part = result.dotted.substr(start, dot == std::string::npos ? dot : dot - start);
    if (part.empty()) {
      throw InputError(override_location(result.dotted),
                       "empty key in '" + result.dotted + "': expected key.path=value");
    }
    result.path.push_back(part);
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  if (value.find_first_not_of(" \t") == std::string::npos) {
    throw InputError(override_location(result.dotted), "missing value after '=' in '" + text + "'");
  }
  try {
    result.value = load_one_value(value, override_location(result.dotted));
  } catch (const YAML::Exception& e) {
    throw InputError(override_location(result.dotted),
                     "cannot read the value '" + value + "' as YAML: " + e.msg);
  }
  return result;
}

namespace {

// A model comes from one source (model.name, model.file or model.hf_config): setting one
// replaces the model, so the file's other source goes, and with it what only described the old
// model (mlp's layers; a sequence length a model file would refuse). Any other key is replaced
// alone, as always.
void replace_model_source(const Override& o, YAML::Node* model) {
  static const char* const kSources[] = {"name", "file", "hf_config"};
  if (o.path.size() != 2 || o.path[0] != "model") return;
  const std::string& source = o.path[1];
  if (std::find(std::begin(kSources), std::end(kSources), source) == std::end(kSources)) return;
  for (const char* other : kSources)
    if (source != other) model->remove(other);
  const bool mlp = source == "name" && o.value.IsScalar() && o.value.Scalar() == "mlp";
  if (!mlp) model->remove("layers");
  if (source == "file") model->remove("sequence_length");
}

}  // namespace

void apply_overrides(YAML::Node* root, const std::vector<std::string>& overrides,
                     YamlContext* context) {
  for (const std::string& text : overrides) {
    Override o = parse_override(text);
    if (!root->IsMap()) {
      if (root->IsDefined() && !root->IsNull()) {
        throw InputError(override_location(o.dotted),
                         "the scenario is not a mapping of sections, cannot set " + o.dotted);
      }
      *root = YAML::Node(YAML::NodeType::Map);
    }
    // reset() rebinds a handle; operator= would overwrite the node it refers to.
    YAML::Node section;
    section.reset(*root);
    std::string walked;
    for (size_t i = 0; i + 1 < o.path.size(); ++i) {
      walked += (walked.empty() ? "" : ".") + o.path[i];
      YAML::Node child = section[o.path[i]];
      if (!child.IsDefined() || child.IsNull()) {
        section[o.path[i]] = YAML::Node(YAML::NodeType::Map);
        child.reset(section[o.path[i]]);
        context->add_override(walked, o.dotted);  // a section the override itself created
      } else if (child.IsScalar() && walked == "cluster.gpu") {
        // `gpu: a100-sxm-40gb` + `--set cluster.gpu.memory=80GiB` = the preset with one field
        // changed, exactly as if the file had said `gpu: {preset: a100-sxm-40gb, memory: ...}`.
        context->pin(walked + ".preset", context->locate(child, walked, {}));
        YAML::Node expanded(YAML::NodeType::Map);
        expanded["preset"] = YAML::Clone(child);
        section[o.path[i]] = expanded;
        child.reset(section[o.path[i]]);
      } else if (!child.IsMap()) {
        throw InputError(override_location(o.dotted),
                         "cannot set " + o.dotted + ": " + walked + " is not a section");
      }
      section.reset(child);
    }
    section[o.path.back()] = o.value;
    context->add_override(o.dotted, o.dotted);
    replace_model_source(o, &section);
  }
}

}  // namespace ddpsim
