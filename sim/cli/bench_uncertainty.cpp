#include "sim/cli/bench_uncertainty.h"

#include <fmt/format.h>
#include <stdlib.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/cli/timed_command.h"
#include "sim/process/install_paths.h"
#include "sim/text/input_error.h"

namespace ddpsim::cli {
namespace {

namespace fs = std::filesystem;

struct Case {
  std::string name;    // what the row measures
  double target_wall;  // seconds, issue 25 "Done when"
  std::vector<std::string> args;
};

}  // namespace

int bench_uncertainty(const TableFormat& format, int jobs, int draws, long long seed) {
  const std::string scenario = scenarios_directory() + "/default.yaml";
  if (!fs::is_regular_file(scenario))
    throw InputError({scenario, 0, 0},
                     "the bundled default scenario is missing (DDPSIM_DATA_DIR?)");
  std::string folder = (fs::temp_directory_path() / "ddpsim-bench-XXXXXX").string();
  if (::mkdtemp(folder.data()) == nullptr)
    throw std::runtime_error("cannot create a temporary folder for the bench");
  const std::string j = std::to_string(jobs), n = std::to_string(draws);
  const std::string s = std::to_string(seed);
  const std::vector<Case> cases = {
      {"simulate default.yaml at 64 nodes (512 GPUs)",
       10,
       {"simulate", scenario, "--set", "cluster.nodes=64", "--uncertainty", n, "--seed", s, "-j", j,
        "-o", folder + "/simulate"}},
      {"compare default.yaml, 5 strategies",
       60,
       {"compare", scenario, "--uncertainty", n, "--seed", s, "-j", j, "-o",
        folder + "/compare.csv"}},
  };
  if (format.text()) {
    std::printf(
        "# ddpsim bench --uncertainty: issue-25 targets, %d draws, -j %d; cpu: user + system of\n"
        "# the command and its draws (on a busy machine the steadier figure: an idle machine\n"
        "# needs at least cpu / its cores of wall time); the verdict is the wall time's\n",
        draws, jobs);
    std::printf("# %-46s %9s %9s  %s\n", "command (--uncertainty)", "wall(s)", "cpu(s)", "target");
  }
  OutputTable table{
      {"command", "draws", "jobs", "status", "wall_s", "cpu_s", "target_wall_s", "target", "error"},
      {}};
  int failures = 0;
  for (const Case& c : cases) {
    const std::string log = folder + "/log.txt";
    const TimedCommand t = run_self_timed(c.args, log);
    const bool ok = t.exit_code == 0;
    failures += ok ? 0 : 1;
    const std::string verdict =
        fmt::format("<= {:.0f} s: {}", c.target_wall, t.wall <= c.target_wall ? "met" : "MISSED");
    const std::string error = ok ? "" : fmt::format("exit {}: {}", t.exit_code, last_line_of(log));
    if (format.text()) {
      if (ok)
        std::printf("  %-46s %9.2f %9.2f  %s\n", c.name.c_str(), t.wall, t.cpu, verdict.c_str());
      else
        std::printf("  %-46s %9s %9s  failed: %s\n", c.name.c_str(), "-", "-", error.c_str());
    }
    table.rows.push_back({c.name, draws, jobs, ok ? "ok" : "failed", t.wall, t.cpu, c.target_wall,
                          ok ? nlohmann::json(verdict) : nlohmann::json(), error});
  }
  std::error_code ignored;
  fs::remove_all(folder, ignored);
  if (!format.text()) print_table(table, format);
  return failures ? kExitFailure : kExitOk;
}

}  // namespace ddpsim::cli
