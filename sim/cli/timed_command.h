// Runs this ddpsim binary as a child process with its output to a log file, and times it: wall
// time, CPU time (user + system of the command and of every child it waited for: draws, sweep
// points) and peak resident memory (the largest of the command and those children, from the
// kernel's rusage). What `ddpsim bench` reports for commands users run.
#pragma once

#include <string>
#include <vector>

namespace ddpsim::cli {

struct TimedCommand {
  int exit_code = 0;
  double wall = 0, cpu = 0;  // seconds
  double peak_rss_kib = 0;   // the largest process of the command's tree
  double load_before = 0, load_after = 0;  // 1-minute load average at start and end
};

TimedCommand run_self_timed(const std::vector<std::string>& args, const std::string& log);

// The last non-empty line of a file ("" when unreadable): why a timed command failed.
std::string last_line_of(const std::string& path);

// The 1-minute load average (/proc/loadavg), 0 when unreadable.
double load_average();

}  // namespace ddpsim::cli
