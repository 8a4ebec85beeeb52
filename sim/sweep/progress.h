// Sweep progress on stderr. On a terminal: a bar redrawn in place (points done, rate, elapsed,
// time left) with one line per finished point scrolling above it. Elsewhere (logs, Slurm output
// files, tests): only the per-point lines, each with the count, rate and time left. The time
// left is the estimated cost of the points left (set_costs: the resource guard's estimates)
// at the pace the points done went through theirs; without costs, at the points' mean rate.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace ddpsim {

class SweepProgress {
 public:
  // `total` points in this run's share, `already_done` of them recorded by an earlier run.
  SweepProgress(size_t total, size_t already_done, bool terminal, std::FILE* out);

  // Each point's estimated cost (any scale), by the index point_done is given.
  void set_costs(std::vector<double> costs);
  // Points run `jobs` at a time, each in its own process (default 1).
  void set_jobs(int jobs) { jobs_ = jobs; }
  // A point finished (ok or failed); `point`: its index in set_costs (ignored without costs);
  // `run_seconds`: how long it took in its own process, when known (time_left, run_progress.h).
  void point_done(const std::string& description, size_t point = 0, double run_seconds = -1);
  void tick();    // redraw the bar (terminal only)
  void finish();  // leave the bar's last state on its own line

  // "1:02:03" or "2:03": for bars and messages.
  static std::string format_duration(double seconds);
  // "[=====>    ] 12/40  2.1 pt/s  elapsed 0:05  left 0:13".
  // `seconds_left` < 0: from the rate of the points done this run.
  static std::string format_bar(size_t done, size_t total, size_t done_this_run, double elapsed,
                                int width, double seconds_left = -1);

 private:
  double elapsed() const;
  double seconds_left() const;  // -1 without costs
  void draw_bar();

  std::vector<double> costs_;
  double cost_done_ = 0, cost_total_ = 0;
  double busy_ = 0;  // the points done's own seconds (0: not reported)
  int jobs_ = 1;

  size_t total_, done_, done_this_run_ = 0;
  bool terminal_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace ddpsim
