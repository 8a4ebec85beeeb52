#include "sim/cost/comm_schedule.h"

#include <cmath>

namespace ddpsim {

std::vector<std::vector<int>> fuse_tensors(const std::vector<double>& bytes, double threshold) {
  std::vector<std::vector<int>> groups;
  double total = 0;
  for (int i = 0; i < static_cast<int>(bytes.size()); ++i) {
    if (groups.empty() || total + bytes[i] > threshold) {
      groups.push_back({i});
      total = bytes[i];
    } else {
      groups.back().push_back(i);
      total += bytes[i];
    }
  }
  return groups;
}

double next_cycle_start(double ready, double first, double period) {
  if (ready <= first || period <= 0) return std::max(ready, first);
  const double cycles = std::ceil((ready - first) / period - 1e-12);
  return first + cycles * period;
}

double default_coordination(int ranks, double alpha) {
  if (ranks <= 1) return 0;
  return 2 * std::ceil(std::log2(static_cast<double>(ranks))) * alpha;
}

}  // namespace ddpsim
