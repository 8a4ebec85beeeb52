// The repository's measured model error: scenarios/validation/discrepancy.csv, written by
// `ddpsim validate --uncertainty 8` (its OUTDIR/discrepancy.csv, copied; docs/model-error.md).
// Read once at the edge (a command), recorded as an input of the results it bands.
#pragma once

#include <string>
#include <vector>

#include "sim/validation/discrepancy.h"

namespace ddpsim {

// share/ddpsim/scenarios/validation/discrepancy.csv beside the binary (install_paths.h).
std::string default_residual_file();

// Reads and checks the file (InputError at file:line:column); at most 4 MiB.
std::vector<ResidualRow> read_residual_file(const std::string& path);

}  // namespace ddpsim
