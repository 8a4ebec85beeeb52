#include "sim/model/model_file.h"

#include <fmt/format.h>

#include <map>
#include <set>

#include "sim/scenario/yaml_reader.h"
#include "sim/text/input_file.h"

namespace ddpsim {
namespace {

// A file the exporter writes for a 400-layer model is under 1 MiB; the YAML reader takes about
// 0.7 s and 60 MB per MiB, so 4 MiB bounds a mistaken file to seconds (docs/reliability.md).
constexpr uint64_t kMaxModelFileBytes = uint64_t{4} << 20;
constexpr size_t kMaxLayers = 100000;

// A model's or a layer's name: printed in tables, traces and CSV, so no control characters (a
// NUL would cut it short in every C string it reaches).
std::string name_text(const YamlValue& value) {
  const std::string text = as_string(value);
  if (text.empty()) fail(value, "expected a non-empty name");
  for (const char c : text)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
      fail(value, fmt::format("the name holds a control character (byte 0x{:02x}); allowed: "
                              "printable characters",
                              static_cast<unsigned>(static_cast<unsigned char>(c))));
  return text;
}

constexpr int kFormatVersion = 1;
constexpr int64_t kMaxElements = int64_t{1} << 50;  // a tensor larger than this is a typo
constexpr double kMaxPerSample = 1e18;              // FLOPs or elements per sample

const char* const kDtypes[] = {"float32", "float16",       "bfloat16",   "float64",
                               "int64",   "int32",         "int8",       "uint8",
                               "bool",    "float8_e4m3fn", "float8_e5m2"};

std::vector<YamlValue> items(const YamlValue& list, YamlContext* context, const char* what) {
  if (!list.node.IsSequence()) fail(list, std::string("expected a list of ") + what);
  std::vector<YamlValue> out;
  int index = 0;
  for (const YAML::Node& node : list.node) {
    YamlValue item{node, list.path + "[" + std::to_string(index++) + "]", {}, list.where};
    item.where = context->locate(node, item.path, list.where);
    item.key_where = item.where;
    out.push_back(item);
  }
  return out;
}

std::string kind_choices() {
  std::string out;
  for (int k = 0; k <= static_cast<int>(LayerKind::kLoss); ++k)
    out += std::string(out.empty() ? "" : ", ") + layer_kind_key(static_cast<LayerKind>(k));
  return out;
}

std::string dtype_choices() {
  std::string out;
  for (const char* d : kDtypes) out += std::string(out.empty() ? "" : ", ") + d;
  return out;
}

struct Param {
  int64_t elements = 0;
  bool trainable = true;
  int flat_index = -1;  // among trainable tensors in layer order
  SourceLocation where;
};

class Reader {
 public:
  explicit Reader(YamlContext* context) : context_(context) {}

  Model read(const YamlValue& document) {
    YamlSection top(document,
                    {"format", "name", "description", "sample_unit", "sequence_length", "source",
                     "parameters", "gradient_order", "layers"},
                    context_);
    const YamlValue format = top.require("format", "1");
    if (as_int(format, 0) != kFormatVersion)
      fail(format, "this ddpsim reads model files of format " + std::to_string(kFormatVersion));
    Model m;
    m.name = name_text(top.require("name", "the model's name, e.g. resnet50"));
    if (auto v = top.get("description")) m.description = as_string(*v);
    if (m.description.empty()) m.description = m.name + " (model file)";
    if (auto v = top.get("sample_unit")) m.sample_unit = as_string(*v);
    if (auto v = top.get("sequence_length")) m.sequence_length = static_cast<int>(as_int(*v, 0));
    // `source` says how the file was made (factory, inputs, PyTorch version): for people only.
    if (auto v = top.get("source")) YamlSection(*v, {}, context_);

    const YamlValue layers = top.require("layers", "the layers in forward order");
    if (layers.node.IsSequence() && layers.node.size() > kMaxLayers)
      fail(layers, "at most " + std::to_string(kMaxLayers) + " layers, got " +
                       std::to_string(layers.node.size()) + " (docs/reliability.md)");
    for (const YamlValue& item : items(layers, context_, "layers")) m.layers.push_back(layer(item));
    if (m.layers.empty()) fail(layers, "expected at least one layer");

    // Flat indices of the trainable tensors in layer order, as Model::gradient_order counts.
    int flat = 0;
    for (const Layer& l : m.layers)
      for (const std::string& n : l.param_names) params_[n].flat_index = flat++;
    for (const auto& [name, where] : tied_)
      if (params_.count(name) == 0)
        fail_at(where, "tied parameter '" + name + "' is not listed in any layer's params");

    if (auto v = top.get("parameters")) {
      const int64_t stated = as_int(*v, 0, INT64_MAX);
      const int64_t counted = m.params() + m.frozen_params();
      if (stated != counted)
        fail(*v, "says " + std::to_string(stated) + " parameters, but the layers list " +
                     std::to_string(counted));
    }
    if (auto v = top.get("gradient_order")) m.gradient_order = gradient_order(*v);
    return m;
  }

 private:
  Layer layer(const YamlValue& value) {
    YamlSection s(value,
                  {"name", "kind", "module", "params", "tied", "fwd_flops", "io_elems",
                   "saved_elems", "bwd_flops_factor"},
                  context_);
    Layer l;
    const YamlValue name = s.require("name", "the layer's name");
    l.name = name_text(name);
    if (!layer_names_.insert(l.name).second) fail(name, "layer '" + l.name + "' appears twice");
    const YamlValue kind = s.require("kind", kind_choices());
    const auto k = parse_layer_kind_key(as_string(kind));
    if (!k) fail(kind, "unknown layer kind '" + as_string(kind) + "'; allowed: " + kind_choices());
    l.kind = *k;
    if (auto v = s.get("module")) as_string(*v);
    if (auto v = s.get("params"))
      for (const YamlValue& p : items(*v, context_, "parameters")) param(p, &l);
    if (auto v = s.get("tied"))
      for (const YamlValue& t : items(*v, context_, "parameter names"))
        tied_.emplace_back(as_string(t), t.where);
    l.fwd_flops =
        as_real(s.require("fwd_flops", "forward FLOPs per sample"), 0, false, kMaxPerSample);
    l.fwd_bytes = as_real(s.require("io_elems", "activation elements read + written per sample"), 0,
                          false, kMaxPerSample);
    l.activation_elems =
        as_real(s.require("saved_elems", "activation elements kept for backward per sample"), 0,
                false, kMaxPerSample);
    if (auto v = s.get("bwd_flops_factor")) l.bwd_flops_factor = as_real(*v, 0, false, 1e3);
    return l;
  }

  void param(const YamlValue& value, Layer* l) {
    YamlSection s(value, {"name", "shape", "dtype", "trainable"}, context_);
    const YamlValue name = s.require("name", "the parameter's name, e.g. fc.weight");
    const std::string n = as_string(name);
    if (n.empty()) fail(name, "expected a non-empty name");
    if (params_.count(n))
      fail(name, "parameter '" + n + "' is listed twice (a tied parameter is listed once, by " +
                     "the first layer that uses it, and named under `tied` by the others)");
    int64_t elements = 1;
    const YamlValue shape = s.require("shape", "a list of dimensions, e.g. [64, 3, 7, 7]");
    for (const YamlValue& d : items(shape, context_, "dimensions")) {
      elements *= as_int(d, 0, kMaxElements);
      if (elements > kMaxElements)
        fail(shape, "more than 2^50 elements in one tensor (" + as_string(d) + " overflows it)");
    }
    const YamlValue dtype = s.require("dtype", dtype_choices());
    bool known = false;
    for (const char* d : kDtypes) known = known || as_string(dtype) == d;
    if (!known)
      fail(dtype, "unknown dtype '" + as_string(dtype) + "'; allowed: " + dtype_choices());
    Param p;
    p.elements = elements;
    p.where = name.where;
    if (auto v = s.get("trainable")) p.trainable = as_bool(*v);
    if (p.trainable) {
      l->param_tensors.push_back(elements);
      l->param_names.push_back(n);
    } else {
      l->frozen_tensors.push_back(elements);
    }
    params_[n] = p;
  }

  std::vector<int> gradient_order(const YamlValue& value) {
    std::vector<int> order;
    std::set<std::string> seen;
    for (const YamlValue& item : items(value, context_, "parameter names")) {
      const std::string n = as_string(item);
      auto it = params_.find(n);
      if (it == params_.end()) fail(item, "unknown parameter '" + n + "'");
      if (!it->second.trainable)
        fail(item, "parameter '" + n + "' is not trainable: it has no gradient");
      if (!seen.insert(n).second) fail(item, "parameter '" + n + "' appears twice");
      order.push_back(it->second.flat_index);
    }
    return order;
  }

  YamlContext* context_;
  std::set<std::string> layer_names_;
  std::map<std::string, Param> params_;
  std::vector<std::pair<std::string, SourceLocation>> tied_;
};

}  // namespace

Model parse_model_file(const std::string& text, const std::string& path) {
  const YAML::Node root = load_document(text, path, "YAML", "model file");
  YamlContext context(path);
  const SourceLocation start{path, 1, 1};
  if (!root.IsMap())
    fail_at(start, "a model file is a mapping with format, name and layers (docs/model-import.md)");
  YamlValue document{root, "", start, start};
  return Reader(&context).read(document);
}

Model load_model_file(const std::string& path) {
  return parse_model_file(read_input_file(path, "model_file", "model file", kMaxModelFileBytes),
                          path);
}

}  // namespace ddpsim
