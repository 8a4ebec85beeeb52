// Where ddpsim finds what ships beside it (the report scripts, the bundled scenarios, the
// calibration harness) and the Python that runs the scripts: relative to the running binary, never
// through a path compiled in, so an installed tree, a moved one or the build tree works from any
// directory.
//
//   <prefix>/bin/ddpsim, <prefix>/bin/ddpsim-calibrate
//   <prefix>/share/ddpsim/reports/*.py, <prefix>/share/ddpsim/scenarios/...
//   <prefix>/share/ddpsim/pytorch/*.py   the PyTorch exporter and tools (calibrate/pytorch)
//
// The build tree has the same shape: build/sim/ddpsim beside build/sim/ddpsim-calibrate, and
// build/share/ddpsim/{reports,scenarios,pytorch} are links to the sources (sim/CMakeLists.txt).
#pragma once

#include <string>

namespace ddpsim {

// The folder of the running executable (/proc/self/exe).
std::string executable_directory();

// $DDPSIM_DATA_DIR, else <executable_directory>/../share/ddpsim.
std::string data_directory();

// $DDPSIM_REPORTS_DIR, else data_directory()/reports.
std::string reports_directory();

// data_directory()/scenarios.
std::string scenarios_directory();

// data_directory()/pytorch: the PyTorch exporter (ddpsim_torch.py), annotate.py, layer_timing.py
// and the other PyTorch tools of calibrate/pytorch.
std::string pytorch_tools_directory();

// The interpreter that runs the report scripts: $DDPSIM_PYTHON, else /usr/bin/python3 (Debian's,
// the one that imports python3-matplotlib; a `python3` earlier on PATH may not).
std::string python_interpreter();

}  // namespace ddpsim
