// The `model:` section: a model zoo key and its shape parameters. The zoo itself decides whether
// the name and shape are valid, so the scenario accepts exactly what `ddpsim models` lists.
#include <algorithm>

#include "sim/model/model_zoo.h"
#include "sim/scenario/scenario_sections.h"

namespace ddpsim {

void parse_model(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  ModelSpec& m = scenario->model;
  YamlSection model(value, {"name", "sequence_length", "layers"}, context);
  YamlValue name = model.require("name", "a model zoo key such as resnet50; see `ddpsim models`");
  m.name = as_string(name);
  std::optional<YamlValue> sequence_length = model.get("sequence_length");
  if (sequence_length) m.sequence_length = static_cast<int>(as_int(*sequence_length, 1));
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
}

}  // namespace ddpsim
