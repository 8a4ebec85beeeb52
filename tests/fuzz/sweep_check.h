// Fuzz check: the `sweep:` section and `--sweep` options of `ddpsim sweep`. The input is a
// scenario file; lines "#sweep key=v1,v2" add command-line axes. Every point of a small sweep is
// then resolved through the scenario loader as plan_sweep does (without the file system).
#pragma once

#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>
#include <vector>

#include "sim/input/scenario_loader.h"
#include "sim/sweep/sweep_spec.h"
#include "tests/fuzz/fuzz_contract.h"

namespace ddpsim::fuzz {

// One input: accepted, or refused with an InputError; anything else is a finding.
inline void check_sweep(const uint8_t* data, size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  fuzz::expect_only_input_errors([&] {
    SweepSpec spec = parse_sweep_section(text, "fuzz.yaml");
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("#sweep ", 0) == 0) add_axis(&spec, parse_sweep_option(line.substr(7)));
    }
    for (const SweepAxis& axis : spec.axes) {
      if (axis.values.empty()) fuzz::finding("accepted an axis without values");
    }
    // Resolving is the loader's job (fuzz_scenario); the first and last points show the
    // overrides load (every point would make each execution up to 8 scenario loads).
    if (spec.point_count() == 0 || spec.point_count() > 8) return;
    const std::vector<SweepPoint> points = expand_sweep(spec);
    if (points.size() != spec.point_count()) fuzz::finding("point count differs from expansion");
    for (size_t i = 0; i < points.size(); ++i) {
      const SweepPoint& point = points[i];
      if (point.overrides.size() != spec.axes.size()) fuzz::finding("point misses an axis");
      (void)describe_point(point);
      if (i != 0 && i + 1 != points.size()) continue;
      try {
        parse_scenario_text(text, "fuzz.yaml", point.overrides);
      } catch (const InputError&) {
      }
    }
  });
}

}  // namespace ddpsim::fuzz
