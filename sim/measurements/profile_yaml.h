// Reading and writing calibration profiles (YAML; format in scenarios/profiles/README.md).
// Reading is strict: an unknown key, a wrong type, a negative time or a broken alpha-beta table
// is an InputError at the offending file:line:column that names what was expected. Numbers are
// written in SI base units with the shortest text that reads back to the same double, so a
// written profile loads back equal.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/measurements/calibration_profile.h"

namespace ddpsim {

// `path` is used in error locations and recorded in CalibrationProfile::source.
CalibrationProfile load_profile(const std::string& path);
CalibrationProfile parse_profile(const std::string& text, const std::string& path);

// Atomic: a temporary file next to `path`, then rename. Throws std::runtime_error on I/O failure.
void write_profile(const CalibrationProfile& profile, const std::string& path);
std::string profile_to_yaml(const CalibrationProfile& profile);

// The table behind `sync.alpha_beta`: a YAML file with a `collectives:` list in the profile's
// format (a whole profile works too), read once by the scenario loader. Throws InputError when
// the file has no all_reduce entry with a fit, or two entries of one collective for the same
// algorithm and GPU count; see alpha_beta_time() for how the simulator evaluates the fits.
AlphaBetaFile load_alpha_beta_file(const std::string& path);
// Its all_reduce fits by algorithm (as `Scenario::sync.alpha_beta` holds a table given in code).
std::map<AllReduceAlgorithm, std::vector<AlphaBetaPoint>> load_alpha_beta_table(
    const std::string& path);

}  // namespace ddpsim
