#include "sim/cost/ps_pipeline.h"

#include <algorithm>

namespace ddpsim {

double pipelined_ps_time(int n, int k, double bytes, int partitions, double worker_bandwidth,
                         double server_bandwidth, double alpha) {
  const double s = bytes / partitions;
  const double period = s * std::max(k / worker_bandwidth, n / server_bandwidth);
  return (static_cast<double>(partitions) / k + 1) * period + 2 * alpha;
}

double pipelined_colocated_ps_time(int n, double bytes, double bandwidth) {
  return 2.0 * (n - 1) * bytes / (n * bandwidth);
}

double ps_sum_bound_time(int n, double bytes, double worker_bandwidth, double server_bandwidth,
                         double alpha, int threads, double memory_bandwidth) {
  const double transfer = alpha + bytes * std::max(1 / worker_bandwidth, n / server_bandwidth);
  return 2 * transfer + (3.0 * (n - 1) + 2) * bytes * threads / memory_bandwidth;
}

}  // namespace ddpsim
