// Progress of a command that runs many simulations (uncertainty draws, validation cases, sweep
// points) on stderr: runs done of the total, elapsed time, and the time left from the estimated
// cost of the runs left (the resource guard's wall estimate, sim/cost/resource_estimate.h),
// scaled by how fast this machine has gone through the estimated cost of the runs done: a big
// run left weighs what it costs, not the mean of the small ones done. On a terminal one line is
// redrawn in place (\r); elsewhere (a log file, a pipe) a plain line is written per tenth of the
// runs, at most one per run, and at the end.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>
#include <vector>

namespace ddpsim {

class RunProgress {
 public:
  // `costs`: each run's estimated seconds (any positive scale; 0s are taken as equal shares).
  RunProgress(std::string label, std::vector<double> costs, bool terminal, std::FILE* out);

  // Run `index` finished (ok or failed), at `elapsed` seconds (default: since construction).
  void run_done(size_t index);
  void run_done(size_t index, double elapsed);
  // Leaves the last state on its own line (terminal) or writes the final plain line.
  void finish();

  // "label: 12/96 runs, elapsed 0:14, left 0:41" (left "?" before the first run is done).
  static std::string format_line(const std::string& label, size_t done, size_t total,
                                 double elapsed, double cost_done, double cost_left);

  size_t done() const { return done_; }

 private:
  void write(double elapsed);

  std::string label_;
  std::vector<double> costs_;
  std::vector<bool> finished_;
  size_t done_ = 0;
  size_t last_tenth_ = 0;  // plain lines: the tenth of the runs last written
  double cost_done_ = 0, cost_total_ = 0;
  bool terminal_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point started_;
};

// Whether stderr is a terminal (progress redrawn in place) or not (plain lines).
bool stderr_is_terminal();

}  // namespace ddpsim
