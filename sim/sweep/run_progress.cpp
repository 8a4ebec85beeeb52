#include "sim/sweep/run_progress.h"

#include <unistd.h>

#include <algorithm>
#include <map>
#include <utility>

#include "sim/sweep/progress.h"

namespace ddpsim {

RunProgress::RunProgress(std::string label, std::vector<double> costs, bool terminal,
                         std::FILE* out)
    : label_(std::move(label)),
      costs_(std::move(costs)),
      finished_(costs_.size(), false),
      own_(costs_.size(), -1.0),
      terminal_(terminal),
      out_(out),
      started_(std::chrono::steady_clock::now()) {
  // Unknown costs count as equal shares: the ETA then follows the runs' count.
  bool known = false;
  for (double c : costs_) known = known || c > 0;
  for (double& c : costs_) c = known ? std::max(c, 0.0) : 1.0;
  for (double c : costs_) cost_total_ += c;
  if (terminal_ && !costs_.empty()) write(0);
}

std::string RunProgress::format_line(const std::string& label, size_t done, size_t total,
                                     double elapsed, double cost_done, double cost_left) {
  return line_with(label, done, total, elapsed,
                   time_left(cost_done, cost_left, elapsed, 0, 1, total - done));
}

std::string RunProgress::line_with(const std::string& label, size_t done, size_t total,
                                   double elapsed, double seconds_left) {
  std::string left = "?";
  if (done >= total)
    left = "0:00";
  else if (done > 0 && seconds_left >= 0)
    left = SweepProgress::format_duration(seconds_left);
  return label + ": " + std::to_string(done) + "/" + std::to_string(total) + " runs, elapsed " +
         SweepProgress::format_duration(elapsed) + ", left " + left;
}

void RunProgress::write(double elapsed) {
  // From the runs' own times where they were reported, else from elapsed time.
  double seconds_left = time_left_by_group(costs_, groups_, own_, jobs_);
  if (seconds_left < 0)
    seconds_left =
        time_left(cost_done_, cost_total_ - cost_done_, elapsed, 0, 1, costs_.size() - done_);
  const std::string line = line_with(label_, done_, costs_.size(), elapsed, seconds_left);
  if (terminal_)
    std::fprintf(out_, "\r\033[K%s", line.c_str());
  else
    std::fprintf(out_, "%s\n", line.c_str());
  std::fflush(out_);
}

void RunProgress::run_done(size_t index) { run_took(index, -1); }

void RunProgress::run_took(size_t index, double run_seconds) {
  run_done(index,
           std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count(),
           run_seconds);
}

void RunProgress::run_done(size_t index, double elapsed, double run_seconds) {
  if (index >= finished_.size() || finished_[index]) return;
  finished_[index] = true;
  ++done_;
  cost_done_ += costs_[index];
  if (run_seconds > 0) own_[index] = run_seconds;
  if (terminal_) {
    write(elapsed);
    return;
  }
  // Plain lines: one per tenth of the runs (each run when there are at most ten).
  const size_t tenth = done_ * 10 / costs_.size();
  if (tenth > last_tenth_ || done_ == costs_.size()) {
    last_tenth_ = tenth;
    write(elapsed);
  }
}

void RunProgress::finish() {
  if (terminal_ && !costs_.empty()) {
    std::fprintf(out_, "\n");
    std::fflush(out_);
  }
}

double time_left(double cost_done, double cost_left, double elapsed, double busy, int jobs,
                 size_t runs_left) {
  if (cost_done <= 0) return -1;
  cost_left = std::max(cost_left, 0.0);
  if (busy <= 0) return elapsed / cost_done * cost_left;
  const double sharing = static_cast<double>(
      std::max<size_t>(1, std::min<size_t>(static_cast<size_t>(std::max(jobs, 1)), runs_left)));
  return busy / cost_done * cost_left / sharing;
}

double time_left_by_group(const std::vector<double>& costs, const std::vector<size_t>& groups,
                          const std::vector<double>& run_seconds, int jobs) {
  auto group_of = [&](size_t i) { return groups.empty() ? i : groups[i]; };
  struct Seen {
    double seconds = 0, cost = 0;
    int runs = 0;
  };
  std::map<size_t, Seen> seen;
  size_t left = 0;
  for (size_t i = 0; i < costs.size(); ++i) {
    if (run_seconds[i] < 0) {
      ++left;
      continue;
    }
    Seen& g = seen[group_of(i)];
    g.seconds += run_seconds[i];
    g.cost += costs[i];
    ++g.runs;
  }
  std::vector<double> paces;
  for (const auto& [group, g] : seen)
    if (g.cost > 0) paces.push_back(g.seconds / g.cost);
  if (paces.empty()) return -1;
  std::sort(paces.begin(), paces.end());
  const size_t n = paces.size();
  const double pace = n % 2 ? paces[n / 2] : (paces[n / 2 - 1] + paces[n / 2]) / 2;
  double seconds = 0;
  for (size_t i = 0; i < costs.size(); ++i) {
    if (run_seconds[i] >= 0) continue;
    const auto it = seen.find(group_of(i));
    seconds += it != seen.end() ? it->second.seconds / it->second.runs : costs[i] * pace;
  }
  const size_t sharing = std::max<size_t>(1, std::min<size_t>(std::max(jobs, 1), left));
  return seconds / static_cast<double>(sharing);
}

bool stderr_is_terminal() { return ::isatty(STDERR_FILENO) != 0; }

}  // namespace ddpsim
