// Running the report scripts: matplotlib is importable only by Debian's /usr/bin/python3 (a
// `python3` earlier on PATH may lack it), so the interpreter is named explicitly.
#pragma once

#include <string>
#include <vector>

namespace ddpsim {

// $DDPSIM_PYTHON, else /usr/bin/python3.
std::string python_interpreter();

// $DDPSIM_REPORTS_DIR, else `source_reports_dir` (the reports/ folder of the sources).
std::string reports_dir(const std::string& source_reports_dir);

// Runs `python_interpreter() script args...` and waits; returns its exit code (1 when it could
// not be started or was killed).
int run_python(const std::string& script, const std::vector<std::string>& args);

}  // namespace ddpsim
