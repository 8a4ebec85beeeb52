// The model zoo: architectures built layer by layer, with parameter counts equal to the reference
// implementations (torchvision, HuggingFace transformers). `build_model` is the only entry point
// the rest of ddpsim uses.
#pragma once

#include <string>
#include <vector>

#include "sim/model/layer.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct ZooEntry {
  std::string key;  // "resnet50", "bert-large", "gpt2-xl", "mlp", ...
  std::string description;
};

// Every model key the zoo knows, in display order.
const std::vector<ZooEntry>& model_zoo();

// Builds the model named by spec.name. Returns false and sets *error (listing the known keys)
// when the name is unknown or the spec is inconsistent (e.g. an mlp with fewer than 2 widths).
bool build_model(const ModelSpec& spec, Model* out, std::string* error);

}  // namespace ddpsim
