// Running the report scripts: matplotlib is importable only by Debian's /usr/bin/python3 (a
// `python3` earlier on PATH may lack it), so the interpreter is named explicitly.
#pragma once

#include <string>
#include <vector>

#include "sim/process/install_paths.h"  // python_interpreter()

namespace ddpsim {

// Runs `python_interpreter() script args...` and waits; returns its exit code (1 when it could
// not be started or was killed).
int run_python(const std::string& script, const std::vector<std::string>& args);

}  // namespace ddpsim
