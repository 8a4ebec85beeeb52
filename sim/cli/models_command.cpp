// ddpsim models [--json | --csv]: the model zoo with parameters, forward GFLOPs and activations
// per sample.
// ddpsim models MODEL [--layers] [--buckets ...] [--json | --csv]: one model (a zoo key, a model
// file exported from PyTorch, or a Hugging Face config.json) as ddpsim sees it: its layers and
// the DDP buckets its gradients fill, in the order they are reduced.
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/cli/command.h"
#include "sim/cli/table_output.h"
#include "sim/cost/bucketing.h"
#include "sim/measurements/calibration_profile.h"
#include "sim/model/hf_config.h"
#include "sim/model/model_file.h"
#include "sim/model/model_zoo.h"
#include "sim/process/install_paths.h"
#include "sim/text/input_error.h"
#include "sim/text/units.h"

namespace ddpsim::cli {
namespace {

struct Options {
  std::string model;
  int sequence_length = 0;
  bool layers = false;
  bool buckets = false;
  std::string bucket_cap = "25MiB";
  std::string first_bucket = "1MiB";
  int gradient_bytes = 4;
} opts;

TableFormat format;

const SourceLocation kCommandLine{"<command line>", 0, 0};

std::string with_commas(long long v) {
  std::string s = std::to_string(v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(i, ",");
  return s;
}

int list_zoo() {
  OutputTable table{{"model", "parameters", "forward_flops_per_sample",
                     "activation_bytes_per_sample", "sample_unit", "description"},
                    {}};
  if (format.text())
    std::printf("%-18s %14s %12s %14s  %s\n", "model", "parameters", "GFLOP/sample", "act./sample",
                "description");
  for (const ZooEntry& entry : model_zoo()) {
    ModelSpec spec;
    spec.name = entry.key;
    if (entry.key == "mlp") spec.mlp_layers = {1024, 4096, 4096, 1024};
    Model model;
    std::string error;
    if (!build_model(spec, &model, &error)) continue;
    const double activation_bytes = model.activation_elems() * 4.0;  // fp32
    table.rows.push_back({entry.key, model.params(), model.fwd_flops(), activation_bytes,
                          model.sample_unit, entry.description});
    if (format.text())
      std::printf("%-18s %14s %12.3f %14s  %s\n", entry.key.c_str(),
                  with_commas(model.params()).c_str(), model.fwd_flops() / 1e9,
                  units::format_bytes(activation_bytes).c_str(), entry.description.c_str());
  }
  if (!format.text()) {
    print_table(table, format);
    return 0;
  }
  std::printf(
      "\nFLOPs are forward, per sample; backward is about 2x. Activations: fp32 bytes saved for "
      "backward per sample (binary units: 1 MiB = 2^20 bytes). mlp: layers [1024, 4096, 4096, "
      "1024].\n`ddpsim models MODEL` shows one model (a zoo key, a model file, a config.json).\n");
  return 0;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Model load(const std::string& what) {
  if (ends_with(what, ".json")) {
    Model m;
    std::string error;
    if (!build_hf_model(load_hf_config(what), opts.sequence_length, &m, &error))
      throw InputError(kCommandLine, "--seq: " + error);
    return m;
  }
  if (ends_with(what, ".yaml") || ends_with(what, ".yml")) {
    if (opts.sequence_length > 0)
      throw InputError(kCommandLine, "--seq does not apply to a model file (it fixes the shapes)");
    return load_model_file(what);
  }
  ModelSpec spec;
  spec.name = what;
  spec.sequence_length = opts.sequence_length;
  if (what == "mlp") spec.mlp_layers = {1024, 4096, 4096, 1024};
  Model m;
  std::string error;
  if (!build_model(spec, &m, &error)) throw InputError(kCommandLine, error);
  return m;
}

double bytes_option(const std::string& text, const char* flag) {
  const units::Parsed p = units::parse(text, units::Kind::kBytes, true);
  if (!p.value || *p.value <= 0)
    throw InputError(kCommandLine,
                     std::string(flag) + ": " + (p.value ? "must be greater than zero" : p.error));
  return *p.value;
}

std::string tensor_name(const Model& m, const GradientTensor& t) {
  const Layer& l = m.layers[static_cast<size_t>(t.layer)];
  if (static_cast<size_t>(t.tensor) < l.param_names.size())
    return l.param_names[static_cast<size_t>(t.tensor)];
  return l.name + "[" + std::to_string(t.tensor) + "]";
}

int show_model() {
  const Model m = load(opts.model);
  const double first = bytes_option(opts.first_bucket, "--first-bucket");
  const double cap = bytes_option(opts.bucket_cap, "--bucket-cap");
  const auto tensors = gradient_tensors(m, opts.gradient_bytes);
  const auto buckets = assign_buckets(tensors, first, cap);

  if (format.csv) {
    // One table: the buckets when asked for, else the layers.
    OutputTable table;
    if (opts.buckets) {
      table.columns = {"bucket", "bytes", "tensors", "ready_layer", "first_tensor", "last_tensor"};
      for (size_t b = 0; b < buckets.size(); ++b)
        table.rows.push_back({b, buckets[b].bytes, buckets[b].tensors.size(),
                              m.layers[static_cast<size_t>(buckets[b].ready_layer)].name,
                              tensor_name(m, buckets[b].tensors.front()),
                              tensor_name(m, buckets[b].tensors.back())});
    } else {
      table.columns = {"layer",    "kind",        "params",          "fwd_flops",
                       "io_elems", "saved_elems", "bwd_flops_factor"};
      for (const Layer& l : m.layers)
        table.rows.push_back({l.name, layer_kind_key(l.kind), l.params(), l.fwd_flops, l.fwd_bytes,
                              l.activation_elems, l.bwd_flops_factor});
    }
    print_table(table, format);
    return 0;
  }
  if (format.json) {
    nlohmann::json doc = {{"name", m.name},
                          {"description", m.description},
                          {"sample_unit", m.sample_unit},
                          {"sequence_length", m.sequence_length},
                          {"parameters", m.params() + m.frozen_params()},
                          {"trainable_parameters", m.params()},
                          {"parameter_tensors", tensors.size()},
                          {"fwd_flops_per_sample", m.fwd_flops()},
                          {"activation_elems_per_sample", m.activation_elems()}};
    if (opts.layers) {
      nlohmann::json layers = nlohmann::json::array();
      for (const Layer& l : m.layers)
        layers.push_back({{"name", l.name},
                          {"kind", layer_kind_key(l.kind)},
                          {"params", l.params()},
                          {"frozen_params", l.frozen_params()},
                          {"param_names", l.param_names},
                          {"fwd_flops", l.fwd_flops},
                          {"io_elems", l.fwd_bytes},
                          {"saved_elems", l.activation_elems},
                          {"bwd_flops_factor", l.bwd_flops_factor}});
      doc["layers"] = layers;
    }
    if (opts.buckets) {
      nlohmann::json out = nlohmann::json::array();
      for (const Bucket& b : buckets) {
        nlohmann::json names = nlohmann::json::array();
        for (const GradientTensor& t : b.tensors) names.push_back(tensor_name(m, t));
        out.push_back({{"bytes", b.bytes},
                       {"ready_layer", m.layers[static_cast<size_t>(b.ready_layer)].name},
                       {"tensors", names}});
      }
      doc["buckets"] = {{"first_bucket_bytes", first},
                        {"bucket_cap_bytes", cap},
                        {"gradient_bytes", opts.gradient_bytes},
                        {"list", out}};
    }
    std::printf("%s\n", doc.dump(2).c_str());
    return 0;
  }

  std::printf("%s: %s\n", m.name.c_str(), m.description.c_str());
  std::printf("  %zu layers, %s parameters in %zu trainable tensors", m.layers.size(),
              with_commas(m.params() + m.frozen_params()).c_str(), tensors.size());
  if (m.frozen_params() > 0) std::printf(" (%s frozen)", with_commas(m.frozen_params()).c_str());
  std::printf(", %.4g GFLOP/sample forward, %s/sample of fp32 activations\n", m.fwd_flops() / 1e9,
              units::format_bytes(m.activation_elems() * 4.0).c_str());
  if (opts.layers) {
    std::printf("\n  %-4s %-44s %-11s %14s %12s %12s %12s\n", "#", "layer", "kind", "params",
                "MFLOP/smp", "io elems", "saved elems");
    for (size_t i = 0; i < m.layers.size(); ++i) {
      const Layer& l = m.layers[i];
      std::printf("  %-4zu %-44s %-11s %14s %12.4g %12.4g %12.4g\n", i, l.name.c_str(),
                  layer_kind_key(l.kind), with_commas(l.params()).c_str(), l.fwd_flops / 1e6,
                  l.fwd_bytes, l.activation_elems);
    }
  }
  if (opts.buckets) {
    std::printf("\n  DDP buckets (first %s, cap %s, %d-byte gradients), in reduction order: %zu\n",
                units::format_bytes(first).c_str(), units::format_bytes(cap).c_str(),
                opts.gradient_bytes, buckets.size());
    std::printf("  %-4s %12s %8s  %-30s %s\n", "#", "size", "tensors", "ready after layer",
                "first .. last tensor");
    for (size_t b = 0; b < buckets.size(); ++b) {
      const Bucket& k = buckets[b];
      std::printf("  %-4zu %12s %8zu  %-30s %s .. %s\n", b, units::format_bytes(k.bytes).c_str(),
                  k.tensors.size(), m.layers[static_cast<size_t>(k.ready_layer)].name.c_str(),
                  tensor_name(m, k.tensors.front()).c_str(),
                  tensor_name(m, k.tensors.back()).c_str());
    }
  }
  return 0;
}

int run() {
  if (opts.model.empty()) return list_zoo();
  return show_model();
}

const bool registered = register_command({
    "models",
    "List the model zoo, or show one model (zoo key, model file, config.json) and its DDP "
    "buckets",
    20,
    [](CLI::App* app) {
      app->add_option("model", opts.model,
                      "A zoo key, a model file (.yaml, written by the PyTorch exporter "
                      "ddpsim_torch.py in " +
                          pytorch_tools_directory() + ") or a Hugging Face config.json");
      app->add_option("--seq", opts.sequence_length, "Sequence length (transformers)")
          ->check(CLI::PositiveNumber);
      app->add_flag("--layers", opts.layers, "List every layer");
      app->add_flag("--buckets", opts.buckets,
                    "DDP's gradient buckets, in the order they are reduced");
      app->add_option("--bucket-cap", opts.bucket_cap, "Bucket size limit (default 25MiB)");
      app->add_option("--first-bucket", opts.first_bucket, "First bucket's limit (default 1MiB)");
      app->add_option("--gradient-bytes", opts.gradient_bytes,
                      "Bytes per gradient element (default 4)")
          ->check(CLI::Range(1, 8));
      add_table_format(app, &format);
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
