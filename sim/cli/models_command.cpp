// ddpsim models: the model zoo with parameters and forward GFLOPs per sample.
#include <cstdio>
#include <string>

#include "sim/cli/command.h"
#include "sim/model/model_zoo.h"

namespace ddpsim::cli {
namespace {

std::string with_commas(long long v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(i, ",");
  return s;
}

int run() {
  std::printf("%-18s %14s %12s %14s  %s\n", "model", "parameters", "GFLOP/sample", "act./sample",
              "description");
  for (const ZooEntry& entry : model_zoo()) {
    ModelSpec spec;
    spec.name = entry.key;
    if (entry.key == "mlp") spec.mlp_layers = {1024, 4096, 4096, 1024};
    Model model;
    std::string error;
    if (!build_model(spec, &model, &error)) continue;
    std::printf("%-18s %14s %12.3f %12.1f MB  %s\n", entry.key.c_str(),
                with_commas(model.params()).c_str(), model.fwd_flops() / 1e9,
                model.activation_elems() * 4 / 1e6, entry.description.c_str());
  }
  std::printf(
      "\nFLOPs are forward, per sample; backward is about 2x. Activations: fp32 bytes "
      "saved for backward per sample.\n");
  return 0;
}

const bool registered = register_command({
    "models",
    "List the model zoo with parameter counts and GFLOPs per sample",
    20,
    [](CLI::App*) {},
    run,
});

}  // namespace
}  // namespace ddpsim::cli
