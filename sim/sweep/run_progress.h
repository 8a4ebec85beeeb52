// Progress of a command that runs many simulations (uncertainty draws, validation cases, sweep
// points) on stderr: runs done of the total, elapsed time, and the time left from the estimated
// cost of the runs left (the resource guard's wall estimate, sim/cost/resource_estimate.h),
// scaled by how fast this machine has gone through the estimated cost of the runs done: a big
// run left weighs what it costs, not the mean of the small ones done (time_left_by_group). On a
// terminal one line is redrawn in place (\r); elsewhere (a log file, a pipe) a plain line is
// written per tenth of the runs, at most one per run, and at the end.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace ddpsim {

class RunProgress {
 public:
  // `costs`: each run's estimated seconds (any positive scale; 0s are taken as equal shares).
  RunProgress(std::string label, std::vector<double> costs, bool terminal, std::FILE* out);

  // Runs go `jobs` at a time, each in its own process (default 1).
  void set_jobs(int jobs) { jobs_ = jobs; }
  // Runs of one group cost alike (a scenario's draws): once one is done, the others are priced
  // at its time (time_left_by_group). Default: every run its own group.
  void set_groups(std::vector<size_t> groups) { groups_ = std::move(groups); }
  // Run `index` finished (ok or failed), at `elapsed` seconds (default: since construction);
  // `run_seconds`: how long the run itself took in its process, when known (time_left_by_group).
  void run_done(size_t index);
  void run_done(size_t index, double elapsed, double run_seconds = -1);
  // Run `index` finished now, after `run_seconds` in its own process (TaskOutcome::wall_seconds).
  void run_took(size_t index, double run_seconds);
  // Leaves the last state on its own line (terminal) or writes the final plain line.
  void finish();

  // "label: 12/96 runs, elapsed 0:14, left 0:41" (left "?" before the first run is done).
  static std::string format_line(const std::string& label, size_t done, size_t total,
                                 double elapsed, double cost_done, double cost_left);

  size_t done() const { return done_; }

 private:
  static std::string line_with(const std::string& label, size_t done, size_t total, double elapsed,
                               double seconds_left);
  void write(double elapsed);

  std::string label_;
  std::vector<double> costs_;
  std::vector<bool> finished_;
  size_t done_ = 0;
  size_t last_tenth_ = 0;  // plain lines: the tenth of the runs last written
  double cost_done_ = 0, cost_total_ = 0;
  std::vector<double> own_;  // each run's own seconds (< 0: not done or not reported)
  std::vector<size_t> groups_;
  int jobs_ = 1;
  bool terminal_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point started_;
};

// Seconds left: `cost_left` at the pace the runs done went through `cost_done` (estimated
// seconds). With `busy`, the runs done's own seconds in their processes (> 0), the pace is per
// process and min(jobs, runs_left) processes share what is left; elapsed time instead counts a
// long run still in flight as time spent on the short ones done beside it (validate starts its
// 40-s 128-GPU run first: docs/performance.md, "Fusion and the pace of parallel runs"). Without
// `busy`, elapsed time. -1 before any cost is done.
double time_left(double cost_done, double cost_left, double elapsed, double busy, int jobs,
                 size_t runs_left);

// Seconds left from the runs' own times (`run_seconds[i]` >= 0 for a run done, < 0 for one left;
// `groups` empty: every run its own group). A run left of a group with a run done costs that
// group's mean time; any other, its estimated cost at the median over the groups with runs done
// of their seconds per estimated second: a median, so that one group priced far off (fused
// all-reduces counted per tensor: 9x) does not set the pace of the others. min(jobs, runs left)
// processes share the sum. -1 before any run is done.
double time_left_by_group(const std::vector<double>& costs, const std::vector<size_t>& groups,
                          const std::vector<double>& run_seconds, int jobs);

// Whether stderr is a terminal (progress redrawn in place) or not (plain lines).
bool stderr_is_terminal();

}  // namespace ddpsim
