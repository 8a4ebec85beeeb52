// ddpsim report OUTDIR: plots and report.html for a sweep (or a single `simulate` output
// folder), drawn by reports/ddpsim_report.py. It runs the Debian interpreter /usr/bin/python3
// explicitly: matplotlib comes from Debian's python3-matplotlib, which only that interpreter
// imports (another `python3` earlier on PATH usually cannot).

#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/util/input_error.h"
#include "sim/util/python_script.h"

namespace ddpsim::cli {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::string out_dir;
  std::string report_dir;
  std::string point;
} opts;

int run() {
  const std::string python = python_interpreter();
  const std::string script =
      reports_dir(std::string(DDPSIM_SOURCE_DIR) + "/reports") + "/ddpsim_report.py";
  std::error_code ec;
  if (!fs::exists(python, ec)) {
    std::fprintf(stderr,
                 "error: reports need the Debian interpreter %s with matplotlib "
                 "(apt-get install python3-matplotlib), and it is not there; set DDPSIM_PYTHON "
                 "to a python3 that can import matplotlib\n",
                 python.c_str());
    return kExitFailure;
  }
  if (!fs::is_regular_file(script, ec)) {
    std::fprintf(stderr,
                 "error: the report script %s is missing; set DDPSIM_REPORTS_DIR to the "
                 "reports/ folder of the ddpsim sources\n",
                 script.c_str());
    return kExitFailure;
  }
  std::vector<std::string> args = {opts.out_dir};
  if (!opts.report_dir.empty()) args.insert(args.end(), {"-o", opts.report_dir});
  if (!opts.point.empty()) args.insert(args.end(), {"--point", opts.point});
  return run_python(script, args);
}

const bool registered = register_command({
    "report",
    "Draw a sweep's plots and report.html (Python + matplotlib from Debian)",
    22,
    [](CLI::App* app) {
      app->add_option("outdir", opts.out_dir, "Output folder of `ddpsim sweep` or `simulate`")
          ->required();
      app->add_option("-o,--out", opts.report_dir, "Where the report goes (default OUTDIR/report)");
      app->add_option("--point", opts.point,
                      "Point (index or point_id) whose step the timeline shows (default: the "
                      "one with the most GPUs)");
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
