// Reading a calibration profile document: its top-level keys and format version, each section
// handed to its reader (profile_sections_read.cpp, profile_collectives_read.cpp).
#include <fmt/format.h>

#include "sim/measurements/profile_node_reader.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/scenario/enum_names.h"
#include "sim/text/input_file.h"
#include "sim/text/yaml_document.h"

namespace ddpsim {

namespace profile_yaml {

CalibrationProfile read_document(const Reader& r, const YAML::Node& root, const std::string& path) {
  r.expect_map(root, "the profile",
               {"format", "device", "notes", "runs", "ceilings", "roofline_efficiency", "overlap",
                "collectives"});
  CalibrationProfile p;
  p.source = path;
  if (root["format"]) {
    const int64_t v = r.integer(root["format"], "format", 1);
    if (v != kFormatVersion)
      r.fail(root["format"], "format: this ddpsim reads profile format " +
                                 std::to_string(kFormatVersion) + ", got " + std::to_string(v));
  }
  if (root["device"]) p.device = read_device(r, root["device"]);
  if (YAML::Node notes = root["notes"]) {
    r.expect_seq(notes, "notes");
    for (const auto& n : notes) p.notes.push_back(r.scalar(n, "notes"));
  }
  if (YAML::Node runs = root["runs"]) {
    r.expect_seq(runs, "runs");
    for (size_t i = 0; i < runs.size(); ++i)
      p.runs.push_back(read_run(r, runs[i], "runs[" + std::to_string(i) + "]"));
  }
  if (root["ceilings"]) p.ceilings = read_ceilings(r, root["ceilings"]);
  if (YAML::Node eff = root["roofline_efficiency"]) {
    std::vector<std::string> kinds;
    for (int i = 0; i <= static_cast<int>(LayerKind::kLoss); ++i)
      kinds.push_back(layer_kind_key(static_cast<LayerKind>(i)));
    r.expect_map(eff, "roofline_efficiency", kinds);
    for (const auto& kv : eff) {
      const std::string w = "roofline_efficiency." + kv.first.Scalar();
      // Above 1 is possible: a layer may beat the measured GEMM/copy ceilings.
      const double e = r.positive(kv.second, w);
      p.roofline_efficiency[*parse_layer_kind_key(kv.first.Scalar())] = e;
    }
  }
  if (root["overlap"]) p.overlap = read_overlap(r, root["overlap"]);
  if (YAML::Node collectives = root["collectives"]) {
    r.expect_seq(collectives, "collectives");
    for (size_t i = 0; i < collectives.size(); ++i)
      p.collectives.push_back(
          read_sweep(r, collectives[i], "collectives[" + std::to_string(i) + "]"));
  }
  return p;
}

YAML::Node parse_yaml(const std::string& text, const std::string& path) {
  try {
    YAML::Node root = load_one_document(text, path, "profile or alpha-beta table");
    if (!root || root.IsNull()) throw InputError({path, 1, 1}, "empty file: expected a YAML map");
    return root;
  } catch (const YAML::ParserException& e) {
    throw yaml_syntax_error(e, text, path, "invalid YAML");
  }
}

}  // namespace profile_yaml

using profile_yaml::parse_yaml;
using profile_yaml::read_document;
using profile_yaml::Reader;

CalibrationProfile parse_profile(const std::string& text, const std::string& path) {
  Reader r(path);
  return read_document(r, parse_yaml(text, path), path);
}

CalibrationProfile load_profile(const std::string& path) {
  return parse_profile(read_input_file(path, "profile", "calibration profile"), path);
}

}  // namespace ddpsim
