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
#include "sim/cli/option_checks.h"
#include "sim/process/install_paths.h"
#include "sim/process/python_script.h"
#include "sim/text/input_error.h"
#include "sim/text/input_file.h"

namespace ddpsim::cli {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::string out_dir;
  std::string report_dir;
  std::string point;
  double min_efficiency = 90;  // percent: a scaling sweep's best point is the largest above it
} opts;

// The folder must be one: the script never opens a pipe or a device in its place (it checks the
// files inside as well, each with file:line when damaged).
void check_folder(const std::string& dir) {
  const SourceLocation where{dir, 0, 0};
  std::error_code ec;
  if (auto kind = special_file_kind(dir); kind && *kind != "a folder")
    throw InputError(where, "cannot draw a report of it: it is " + *kind +
                                ", not the output folder of `ddpsim sweep` or `simulate`");
  if (fs::is_regular_file(dir, ec))
    throw InputError(where,
                     "cannot draw a report of it: it is a file, not the output folder of `ddpsim "
                     "sweep` or `simulate` (give the folder that holds results.csv)");
  if (!fs::is_directory(dir, ec)) throw InputError(where, "no such folder");
}

int run() {
  check_folder(opts.out_dir);
  const std::string python = python_interpreter();
  const std::string script = reports_directory() + "/ddpsim_report.py";
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
  char efficiency[32];
  std::snprintf(efficiency, sizeof efficiency, "%g", opts.min_efficiency);
  args.insert(args.end(), {"--min-efficiency", efficiency});
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
                      "Point (index or point_id) the timeline and link heat map show (default: the "
                      "one with the most GPUs)");
      app->add_option("--min-efficiency", opts.min_efficiency,
                      "A scaling sweep's best point: the largest size whose scaling efficiency "
                      "is at least this many percent")
          ->capture_default_str()
          ->check(finite_number(0.001) & CLI::Range(0.001, 100.0));
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
