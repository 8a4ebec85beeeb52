// Sweep progress on stderr. On a terminal: a bar redrawn in place (points done, rate, elapsed,
// time left) with one line per finished point scrolling above it. Elsewhere (logs, Slurm output
// files, tests): only the per-point lines, each with the count, rate and time left.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace ddpsim {

class SweepProgress {
 public:
  // `total` points in this run's share, `already_done` of them recorded by an earlier run.
  SweepProgress(size_t total, size_t already_done, bool terminal, std::FILE* out);

  void point_done(const std::string& description);  // a point finished (ok or failed)
  void tick();                                      // redraw the bar (terminal only)
  void finish();                                    // leave the bar's last state on its own line

  // "1:02:03" or "2:03": for bars and messages.
  static std::string format_duration(double seconds);
  // "[=====>    ] 12/40  2.1 pt/s  elapsed 0:05  left 0:13".
  static std::string format_bar(size_t done, size_t total, size_t done_this_run, double elapsed,
                                int width);

 private:
  double elapsed() const;
  void draw_bar();

  size_t total_, done_, done_this_run_ = 0;
  bool terminal_;
  std::FILE* out_;
  std::chrono::steady_clock::time_point started_;
};

}  // namespace ddpsim
