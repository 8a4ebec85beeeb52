#include "sim/cli/bench_workloads.h"

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

struct Workload {
  std::string name;    // what the row measures
  double target_wall;  // seconds, issue 33 "Done when"; 0: none
  bool heavy;          // minutes: only with --heavy
  std::vector<std::string> args;
};

std::string bundled(const std::string& file) {
  const std::string path = scenarios_directory() + "/" + file;
  if (!fs::is_regular_file(path))
    throw InputError({path, 0, 0}, "a bundled scenario is missing (DDPSIM_DATA_DIR?)");
  return path;
}

}  // namespace

int bench_workloads(const TableFormat& format, int jobs, bool heavy) {
  const std::string llama = bundled("llama3-8b-16x8-h100.yaml");
  // The slowest bundled scenario (but the job above) as a user runs it: simulate with its
  // baseline (measured 2026-11-29 over every scenarios/*.yaml at edc421f: 2.4 s of CPU, the
  // next 1.4 s; docs/performance.md).
  const std::string slowest = bundled("gb200-nvl72.yaml");
  // The parameter-server job of issue 33: 128 GPUs, 16 colocated servers over 10 Gb/s TCP.
  const std::string ps = bundled("validation/bugliarello-2017/bug-p28-inceptionv3-128.yaml");
  std::string folder = (fs::temp_directory_path() / "ddpsim-bench-XXXXXX").string();
  if (::mkdtemp(folder.data()) == nullptr)
    throw std::runtime_error("cannot create a temporary folder for the bench");
  const std::string j = std::to_string(jobs);
  auto sweep_point = [&](int nodes, double target, bool is_heavy) {
    return Workload{fmt::format("sweep point llama3-8b zero3, {} GPUs", nodes * 8),
                    target,
                    is_heavy,
                    {"sweep", llama, "--sweep", "cluster.nodes=" + std::to_string(nodes), "-j", j,
                     "--yes", "-o", folder + "/point" + std::to_string(nodes)}};
  };
  const std::vector<Workload> all = {
      sweep_point(16, 0, false),
      {"simulate gb200-nvl72.yaml", 0, false, {"simulate", slowest, "-o", folder + "/slow"}},
      {"simulate bug-p28-inceptionv3-128 (PS, TCP) --headline-only",
       0,
       false,
       {"simulate", ps, "--headline-only", "-o", folder + "/ps-headline"}},
      {"simulate bug-p28-inceptionv3-128 (PS, TCP)",
       0,
       true,
       {"simulate", ps, "-o", folder + "/ps"}},
      {"compare llama3-8b zero3,fsdp-hybrid,zero1 --uncertainty 32",
       30,
       true,
       {"compare", llama, "--strategies", "zero3,fsdp-hybrid,zero1", "--uncertainty", "32", "-j", j,
        "-o", folder + "/compare.csv"}},
      sweep_point(64, 0, true),
      sweep_point(128, 3, true),
      {"sweep llama3-8b 8-1,024 GPUs --uncertainty 32",
       180,
       true,
       {"sweep", llama, "--sweep", "cluster.nodes=1,2,4,8,16,32,64,128", "--uncertainty", "32",
        "-j", j, "--yes", "-o", folder + "/banded"}},
      {"validate --uncertainty 8",
       180,
       true,
       {"validate", "--uncertainty", "8", "-j", j, "-o", folder + "/validate"}},
  };
  if (format.text()) {
    std::printf(
        "# ddpsim bench --workloads%s: commands as users run them, -j %d; cpu: user + system of\n"
        "# the command and its children; peak: the largest process's resident memory; load: the\n"
        "# 1-minute load average at start and end (on a busy machine cpu is the steadier figure)\n",
        heavy ? " --heavy" : "", jobs);
    std::printf("# %-58s %9s %9s %9s %11s  %s\n", "command", "wall(s)", "cpu(s)", "peak(MiB)",
                "load", "target");
  }
  OutputTable table{{"command", "jobs", "status", "wall_s", "cpu_s", "peak_rss_bytes", "load_start",
                     "load_end", "target_wall_s", "target", "error"},
                    {}};
  int failures = 0;
  for (const Workload& w : all) {
    if (w.heavy && !heavy) continue;
    const std::string log = folder + "/log.txt";
    const TimedCommand t = run_self_timed(w.args, log);
    const bool ok = t.exit_code == 0;
    failures += ok ? 0 : 1;
    const std::string verdict = w.target_wall <= 0
                                    ? "-"
                                    : fmt::format("<= {:.0f} s: {}", w.target_wall,
                                                  t.wall <= w.target_wall ? "met" : "MISSED");
    const std::string error = ok ? "" : fmt::format("exit {}: {}", t.exit_code, last_line_of(log));
    const std::string load = fmt::format("{:.1f}-{:.1f}", t.load_before, t.load_after);
    if (format.text()) {
      if (ok)
        std::printf("  %-58s %9.2f %9.2f %9.1f %11s  %s\n", w.name.c_str(), t.wall, t.cpu,
                    t.peak_rss_kib / 1024.0, load.c_str(), verdict.c_str());
      else
        std::printf("  %-58s %9s %9s %9s %11s  failed: %s\n", w.name.c_str(), "-", "-", "-",
                    load.c_str(), error.c_str());
      std::fflush(stdout);
    }
    table.rows.push_back({w.name, jobs, ok ? "ok" : "failed", t.wall, t.cpu,
                          t.peak_rss_kib * 1024.0, t.load_before, t.load_after,
                          w.target_wall > 0 ? nlohmann::json(w.target_wall) : nlohmann::json(),
                          verdict == "-" ? nlohmann::json() : nlohmann::json(verdict), error});
  }
  std::error_code ignored;
  fs::remove_all(folder, ignored);
  if (!format.text()) print_table(table, format);
  return failures ? kExitFailure : kExitOk;
}

}  // namespace ddpsim::cli
