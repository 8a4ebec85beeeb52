// Model files: a model as a list of layers written by a tool rather than built by the zoo (the
// PyTorch exporter, calibrate/pytorch/ddpsim_torch.py). Format and meaning of every key:
// docs/model-import.md. Reading is strict, like a scenario: an unknown key, a wrong type, a
// negative cost, a parameter listed twice or a broken gradient order is an InputError at the
// file's line and column naming what was expected.
#pragma once

#include <string>

#include "sim/model/layer.h"

namespace ddpsim {

Model load_model_file(const std::string& path);
// `path` names the text in messages.
Model parse_model_file(const std::string& text, const std::string& path);

}  // namespace ddpsim
