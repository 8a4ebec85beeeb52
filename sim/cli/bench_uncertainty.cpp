#include "sim/cli/bench_uncertainty.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/util/input_error.h"
#include "sim/util/install_paths.h"

extern char** environ;

namespace ddpsim::cli {
namespace {

namespace fs = std::filesystem;

struct Timed {
  int exit_code = 0;
  double wall = 0, cpu = 0;  // seconds; cpu: user + system of the command and its children
};

// Runs this binary with `args`, stdout and stderr to `log`, and times it.
Timed run_self(const std::vector<std::string>& args, const std::string& log) {
  const std::string self = executable_directory() + "/ddpsim";
  std::vector<char*> argv;
  std::vector<std::string> all = {self};
  all.insert(all.end(), args.begin(), args.end());
  for (std::string& a : all) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  posix_spawn_file_actions_addopen(&files, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC,
                                   0644);
  posix_spawn_file_actions_adddup2(&files, STDOUT_FILENO, STDERR_FILENO);
  Timed t;
  const auto started = std::chrono::steady_clock::now();
  pid_t pid = 0;
  const int spawned = posix_spawn(&pid, self.c_str(), &files, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&files);
  if (spawned != 0) {
    t.exit_code = kExitFailure;
    return t;
  }
  int status = 0;
  struct rusage usage {};
  while (::wait4(pid, &status, 0, &usage) < 0 && errno == EINTR) {
  }
  t.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  // The children a command waited for (its draws) are counted in its own usage.
  t.cpu = usage.ru_utime.tv_sec + usage.ru_utime.tv_usec * 1e-6 + usage.ru_stime.tv_sec +
          usage.ru_stime.tv_usec * 1e-6;
  t.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return t;
}

std::string last_line(const std::string& path) {
  std::FILE* f = std::fopen(path.c_str(), "r");
  if (f == nullptr) return "";
  std::string text, line;
  char buf[4096];
  while (std::fgets(buf, sizeof buf, f)) {
    line = buf;
    if (!line.empty() && line.back() == '\n') line.pop_back();
    if (!line.empty()) text = line;
  }
  std::fclose(f);
  return text;
}

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
    const Timed t = run_self(c.args, log);
    const bool ok = t.exit_code == 0;
    failures += ok ? 0 : 1;
    const std::string verdict =
        fmt::format("<= {:.0f} s: {}", c.target_wall, t.wall <= c.target_wall ? "met" : "MISSED");
    const std::string error = ok ? "" : fmt::format("exit {}: {}", t.exit_code, last_line(log));
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
