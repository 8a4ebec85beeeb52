// What a sweep varies. Axes come from the scenario's top-level `sweep:` mapping
// ({key.path: [v1, v2, ...]}) and from `--sweep key.path=v1,v2,...`; command-line axes follow the
// file's, and one for a key the file already sweeps replaces that axis in place.
//
// Points are the cartesian product of the axes in the order the axes are written: the first axis
// varies slowest and the last fastest, like nested loops, so point 0 takes every axis's first
// value. A point is the list of loader overrides ("cluster.nodes=4") applied after any --set.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/text/input_error.h"

namespace ddpsim {

struct SweepValue {
  std::string text;      // canonical YAML flow text: "4", "25MiB", "[1024, 10]"
  SourceLocation where;  // where it was written ("<--sweep key>" for the command line)
};

struct SweepAxis {
  std::string key;  // dotted scenario path, e.g. "sync.bucket_cap"
  SourceLocation key_where;
  std::vector<SweepValue> values;
};

// plan_sweep() refuses sweeps with more points: each is resolved before any runs.
constexpr size_t kMaxSweepPoints = 1000000;

struct SweepSpec {
  std::vector<SweepAxis> axes;
  size_t point_count() const;  // product of the axis sizes (saturating); 0 when there are no axes
};

struct SweepPoint {
  size_t index = 0;                    // position in the cartesian order
  std::vector<size_t> value_index;     // per axis, which value
  std::vector<std::string> overrides;  // per axis, "key=value"
};

// The `sweep:` mapping of a scenario file (empty spec when there is none). Errors (not a
// mapping, a value that is not a non-empty list, a repeated key or value) are InputErrors at
// the offending key or value.
SweepSpec parse_sweep_section(const std::string& yaml_text, const std::string& file_name);

// One `--sweep key.path=v1,v2,...` option. Values split at commas outside brackets and quotes,
// so `--sweep model.layers=[1024,10],[2048,10]` has two values.
SweepAxis parse_sweep_option(const std::string& text);

// Appends `axis`, or replaces the axis with the same key where it stands.
void add_axis(SweepSpec* spec, SweepAxis axis);

// Every point, in cartesian order.
std::vector<SweepPoint> expand_sweep(const SweepSpec& spec);

// "cluster.nodes=4, sync.bucket_cap=25MiB" for messages and progress lines.
std::string describe_point(const SweepPoint& point);

}  // namespace ddpsim
