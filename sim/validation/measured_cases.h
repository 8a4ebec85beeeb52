// A measurement file of the machine at hand (`ddpsim validate --measured FILE`), written by
// calibrate/pytorch/ground_truth.py: each case names a scenario generated beside the file and
// the value measured for it. The cases join the published ones in the group `local`.
//
//   {"format": 1,
//    "source": "calibrate/pytorch/ground_truth.py on HOST (2 cores, CPU), DATE",
//    "cases": [{"id": "local-mlp-100mbit-2x-cap1", "scenario": "local-mlp-100mbit-2x-cap1.yaml",
//               "metric": "iteration_time", "measured": 0.52, "unit": "s",
//               "load": 2.1, "note": "..."}],
//    "busy_load": 3, "points": [...]}          # provenance, not read
//
// JSON or YAML (JSON is YAML); strict like a scenario: an unknown key, a missing one, a wrong
// type or unit, or a scenario that does not exist is an InputError at file:line:column.
#pragma once

#include <string>
#include <vector>

#include "sim/validation/validation_case.h"

namespace ddpsim {

struct MeasuredCase {
  std::string scenario;  // path, resolved against the measurement file's folder
  double load = -1;      // 1-minute load average while measured (-1: not recorded)
  ValidationCase c;      // group kLocal
};

struct MeasuredFile {
  std::string file;
  std::string source;
  std::vector<MeasuredCase> cases;
};

MeasuredFile read_measured_file(const std::string& path);
// The same from text; `file_name` is used in messages and to resolve scenario paths.
MeasuredFile parse_measured_file(const std::string& text, const std::string& file_name);

}  // namespace ddpsim
