// The `model:` section: a model zoo key and its shape parameters, a model file exported from
// PyTorch, or a Hugging Face config.json; and model.attention (eager, sdpa, flash), resolved here
// for every source (ModelSpec::attention). The zoo itself decides whether a name and shape are
// valid, so the scenario accepts exactly what `ddpsim models` lists; files are read here, once,
// and their errors point into them.
#include <algorithm>
#include <memory>

#include "sim/model/attention_choice.h"
#include "sim/model/hf_config.h"
#include "sim/model/model_file.h"
#include "sim/model/model_zoo.h"
#include "sim/input/scenario_sections.h"

namespace ddpsim {
namespace {

// model.file: the file says everything; a sequence length or widths would be ignored.
void load_file(const YamlSection& model, const YamlValue& file, YamlContext* context,
               ModelSpec* m) {
  for (const char* key : {"sequence_length", "layers"})
    if (auto v = model.get(key))
      fail(*v, std::string(key) +
                   " does not apply to model.file (the file fixes the shapes; "
                   "export it again with other inputs)");
  if (auto v = model.get("attention"))
    fail(*v,
         "model.attention does not apply to model.file (the exported layers fix it; export "
         "again with the attention implementation you run)");
  m->file = as_existing_path(file, *context);
  auto loaded = std::make_shared<Model>(load_model_file(m->file));
  m->name = loaded->name;
  m->attention = attention_of(*loaded);
  m->loaded = std::move(loaded);
}

// The config's attn_implementation states the implementation as model.attention would (the
// assumption ledger then lists it as the scenario's, not as a default).
void read_hf_config_model(const YamlSection& model, const YamlValue& file, YamlContext* context,
                          Scenario* scenario) {
  ModelSpec* m = &scenario->model;
  if (auto v = model.get("layers")) fail(*v, "layers applies only to model 'mlp'");
  m->hf_config = as_existing_path(file, *context);
  HfConfig config = load_hf_config(m->hf_config);
  if (m->attention_stated) {
    config.attention = *m->attention;
  } else {
    m->attention = config.attention;
    m->attention_where = file.where;
    if (config.attention_stated) scenario->stated.insert("model.attention");
  }
  auto built = std::make_shared<Model>();
  std::string error;
  if (!build_hf_model(config, m->sequence_length, built.get(), &error))
    fail_at(model.get("sequence_length").value_or(file).where, error);
  m->name = built->name;
  m->sequence_length = built->sequence_length;
  m->loaded = std::move(built);
}

// model.attention: as_enum's message names the allowed values. Resolved for the other sources
// after the model is built (resolve_attention).
void read_attention(const YamlSection& model, ModelSpec* m) {
  if (auto v = model.get("attention")) {
    m->attention = as_enum<Attention>(*v);
    m->attention_stated = true;
    m->attention_where = v->where;
  }
}

// A zoo model or a model file: the stated implementation must have attention layers to act on;
// otherwise the model's own, as built.
void resolve_attention(const YamlSection& model, const Model& built, ModelSpec* m) {
  const std::optional<Attention> own = attention_of(built);
  if (m->attention_stated && !own)
    fail(*model.get("attention"), "model '" + built.name +
                                      "' has no attention layers: model.attention applies to "
                                      "transformers only");
  if (!m->attention_stated) {
    m->attention = own;
    m->attention_where = model.where();
  }
}

}  // namespace

void parse_model(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  ModelSpec& m = scenario->model;
  YamlSection model(value, {"name", "file", "hf_config", "sequence_length", "layers", "attention"},
                    context);
  read_attention(model, &m);
  std::vector<YamlValue> sources;
  for (const char* key : {"name", "file", "hf_config"})
    if (auto v = model.get(key)) sources.push_back(*v);
  if (sources.empty())
    fail_at(model.where(),
            "missing required key 'name' in model (a model zoo key such as resnet50; see "
            "`ddpsim models`), or 'file' (a model file exported from PyTorch), or 'hf_config' "
            "(a Hugging Face config.json)");
  if (sources.size() > 1)
    fail(sources[1], "give one of name, file and hf_config, not " + sources[0].path + " and " +
                         sources[1].path);
  std::optional<YamlValue> sequence_length = model.get("sequence_length");
  if (sequence_length) m.sequence_length = static_cast<int>(as_int(*sequence_length, 1));
  if (auto file = model.get("file")) return load_file(model, *file, context, &m);
  if (auto file = model.get("hf_config"))
    return read_hf_config_model(model, *file, context, scenario);

  YamlValue name = *model.get("name");
  m.name = as_string(name);
  std::optional<YamlValue> layers = model.get("layers");
  if (layers) {
    if (m.name != "mlp") fail(*layers, "layers applies only to model 'mlp', not '" + m.name + "'");
    if (!layers->node.IsSequence()) {
      fail(*layers, "expected a sequence of layer widths, input first, e.g. [1024, 4096, 10]");
    }
    int index = 0;
    for (const YAML::Node& width : layers->node) {
      YamlValue item{width, layers->path + "[" + std::to_string(index++) + "]", {}, layers->where};
      item.where = context->locate(width, item.path, layers->where);
      m.mlp_layers.push_back(static_cast<int>(as_int(item, 1)));
    }
  }

  Model built;
  std::string error;
  if (!build_model(m, &built, &error)) {
    const auto& zoo = model_zoo();
    bool known =
        std::any_of(zoo.begin(), zoo.end(), [&](const ZooEntry& e) { return e.key == m.name; });
    // A known name with a bad shape is the shape's fault; point there. The zoo's messages
    // already name the key.
    if (known && layers) fail_at(layers->where, error);
    if (known && sequence_length) fail_at(sequence_length->where, error);
    fail_at(name.where, error);
  }
  resolve_attention(model, built, &m);
}

}  // namespace ddpsim
