#include "sim/sweep/progress.h"

#include <algorithm>
#include <cmath>
#include <utility>

#include "sim/sweep/run_progress.h"

namespace ddpsim {

SweepProgress::SweepProgress(size_t total, size_t already_done, bool terminal, std::FILE* out)
    : total_(total),
      done_(already_done),
      terminal_(terminal),
      out_(out),
      started_(std::chrono::steady_clock::now()) {
  if (terminal_) draw_bar();
}

double SweepProgress::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
}

std::string SweepProgress::format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "?";
  const long total = std::lround(seconds);
  char buf[32];
  if (total >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", total / 3600, total / 60 % 60, total % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld:%02ld", total / 60, total % 60);
  }
  return buf;
}

void SweepProgress::set_costs(std::vector<double> costs) {
  costs_ = std::move(costs);
  cost_total_ = 0;
  for (double c : costs_) cost_total_ += std::max(c, 0.0);
}

double SweepProgress::seconds_left() const {
  if (costs_.empty()) return -1;
  return time_left(cost_done_, cost_total_ - cost_done_, elapsed(), busy_, jobs_, total_ - done_);
}

std::string SweepProgress::format_bar(size_t done, size_t total, size_t done_this_run,
                                      double elapsed, int width, double seconds_left) {
  std::string bar = "[";
  const int filled = total ? static_cast<int>(width * done / total) : width;
  for (int i = 0; i < width; ++i) bar += i < filled ? '=' : (i == filled ? '>' : ' ');
  bar += "] " + std::to_string(done) + "/" + std::to_string(total);
  const double rate = elapsed > 0 ? done_this_run / elapsed : 0;
  char buf[96];
  if (done_this_run > 0) {
    const double left = seconds_left >= 0 ? seconds_left : (total - done) / rate;
    std::snprintf(buf, sizeof buf, "  %.2f pt/s  elapsed %s  left %s", rate,
                  format_duration(elapsed).c_str(), format_duration(left).c_str());
  } else {
    std::snprintf(buf, sizeof buf, "  elapsed %s  left ?", format_duration(elapsed).c_str());
  }
  return bar + buf;
}

void SweepProgress::draw_bar() {
  std::fprintf(out_, "\r\033[K%s",
               format_bar(done_, total_, done_this_run_, elapsed(), 30, seconds_left()).c_str());
  std::fflush(out_);
}

void SweepProgress::point_done(const std::string& description, size_t point, double run_seconds) {
  ++done_;
  ++done_this_run_;
  if (point < costs_.size()) cost_done_ += std::max(costs_[point], 0.0);
  if (run_seconds > 0) busy_ += run_seconds;
  if (terminal_) {
    std::fprintf(out_, "\r\033[K%s\n", description.c_str());
    draw_bar();
    return;
  }
  const double rate = done_this_run_ / std::max(elapsed(), 1e-9);
  const double left = seconds_left();
  std::fprintf(out_, "[%zu/%zu] %s  (%.2f pt/s, left %s)\n", done_, total_, description.c_str(),
               rate, format_duration(left >= 0 ? left : (total_ - done_) / rate).c_str());
  std::fflush(out_);
}

void SweepProgress::tick() {
  if (terminal_) draw_bar();
}

void SweepProgress::finish() {
  if (terminal_) {
    draw_bar();
    std::fprintf(out_, "\n");
    std::fflush(out_);
  }
}

}  // namespace ddpsim
