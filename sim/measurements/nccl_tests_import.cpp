#include "sim/measurements/nccl_tests_import.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <tuple>

#include "sim/measurements/nccl_tests_table.h"
#include "sim/output/atomic_file.h"
#include "sim/text/input_error.h"
#include "sim/text/input_file.h"

namespace ddpsim {

using namespace nccl_tests;

NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& file, CollectiveOp op,
                                  int table) {
  const std::vector<Table> tables = read_nccl_tests_tables(text, file);
  if (tables.empty())
    throw InputError({file, 1, 1}, std::string("not an nccl-tests log: no column header line (") +
                                       kHeaderExample + ")");
  const Table& t = select_table(tables, op, table, file);
  const TimeUnit unit = table_unit(t);
  for (const Row& r : t.rows) {
    const double seconds = r.time * unit_seconds(unit);
    if (!(seconds > 0))  // 1e-320 us would become 0 s
      throw InputError({file, r.line, r.time_column},
                       std::string("time: expected a positive number of ") + unit_name(unit) +
                           ", got '" + r.time_text + "'");
    if (seconds > kMaxSeconds)
      throw InputError({file, r.line, r.time_column},
                       fmt::format("time: at most 1e6 seconds (1e{} {}), got {} {}",
                                   unit == TimeUnit::kMilliseconds ? 9 : 12, unit_symbol(unit),
                                   r.time_text, unit_symbol(unit)));
    if (r.wrong > 0)
      throw InputError({file, r.line, r.wrong_column},
                       fmt::format("{} wrong results at size {}: the run is broken, its times "
                                   "are not measurements to calibrate with",
                                   r.wrong, r.size));
  }
  if (t.rows.size() < 2) {
    const int at = t.last_line > 0 ? t.last_line : t.header.line;
    throw InputError({file, at, 1},
                     fmt::format("expected at least 2 data rows of non-zero size after the "
                                 "header on line {}, got {}",
                                 t.header.line, t.rows.size()));
  }
  NcclTestsLog log;
  log.op = op;
  log.table_line = t.header.line;
  for (const Row& r : t.rows)
    log.samples.push_back({static_cast<double>(r.size), r.time * unit_seconds(unit), 0});
  log.ranks = static_cast<int>(t.run.ranks.size());
  log.nodes = static_cast<int>(t.run.hosts.size());
  log.device = t.run.device;
  log.device_line = t.run.device_line;
  log.host = t.run.host;
  log.nccl_version = t.run.nccl_version;
  log.backend = t.run.backend;
  return log;
}

DeviceInfo device_from_log(const NcclTestsLog& log) {
  DeviceInfo d;
  d.name = log.device;
  d.gpus = log.gpus_per_node();
  d.nodes = log.nodes;
  d.host = log.host;
  d.nccl = log.nccl_version;
  return d;
}

void fit_sweep(CollectiveSweep* sweep, const AlphaBetaFitOptions& options) {
  std::vector<double> bytes, seconds;
  for (const CollectiveSample& s : sweep->samples) {
    bytes.push_back(s.bytes);
    seconds.push_back(s.seconds);
  }
  const AlphaBetaFit fit = fit_alpha_beta(bytes, seconds, options);
  sweep->fit = fit.ranges;
  for (size_t i = 0; i < sweep->samples.size(); ++i) sweep->samples[i].fit_error = fit.rel_error[i];
}

CollectiveSweep import_nccl_tests(const std::string& path, CollectiveOp op,
                                  AllReduceAlgorithm algorithm, const AlphaBetaFitOptions& options,
                                  NcclTestsLog* parsed, int table) {
  const NcclTestsLog log =
      parse_nccl_tests_log(read_regular_file(path, "nccl-tests log"), path, op, table);
  if (parsed != nullptr) *parsed = log;
  CollectiveSweep sweep;
  sweep.op = op;
  sweep.algorithm = algorithm;
  sweep.gpus = log.ranks;
  sweep.nodes = log.nodes;
  sweep.device = log.device;
  sweep.backend = !log.backend.empty()       ? log.backend
                  : log.nccl_version.empty() ? "nccl"
                                             : "nccl " + log.nccl_version;
  sweep.source = (log.backend.empty() ? "nccl-tests: " : "torch.distributed sweep: ") + path;
  if (!log.device.empty()) sweep.source += " (" + log.device + ")";
  if (!log.nccl_version.empty()) sweep.source += ", NCCL " + log.nccl_version;
  sweep.samples = log.samples;
  fit_sweep(&sweep, options);
  for (const AlphaBetaPoint& range : sweep.fit) {
    if (range.beta > kMaxBeta)
      throw InputError({path, 0, 0},
                       fmt::format("the times imply more than 1 second per byte (below 1 B/s) "
                                   "between {} and {} bytes: these are not the times of a "
                                   "collective",
                                   range.min_bytes, range.max_bytes));
  }
  return sweep;
}

double bus_bandwidth_factor(CollectiveOp op, int ranks) {
  if (ranks <= 1) return op == CollectiveOp::kBroadcast ? 1.0 : 0.0;
  const double n = ranks;
  switch (op) {
    case CollectiveOp::kAllReduce:
      return 2 * (n - 1) / n;
    case CollectiveOp::kAllGather:
    case CollectiveOp::kReduceScatter:
      return (n - 1) / n;
    case CollectiveOp::kBroadcast:
      return 1.0;
  }
  return 1.0;
}

std::string format_sweep_table(const CollectiveSweep& sweep) {
  std::string out =
      fmt::format("# {} ({}), {} GPUs on {} nodes, source: {}\n", collective_op_key(sweep.op),
                  algorithm_name(sweep.algorithm), sweep.gpus, sweep.nodes, sweep.source);
  out += fmt::format("#{:>14} {:>12} {:>9} {:>9} {:>12} {:>8}\n", "size", "time", "algbw", "busbw",
                     "fit", "error");
  out += fmt::format("#{:>14} {:>12} {:>9} {:>9} {:>12} {:>8}\n", "(B)", "(us)", "(GB/s)", "(GB/s)",
                     "(us)", "(%)");
  const double factor = bus_bandwidth_factor(sweep.op, sweep.gpus);
  for (const CollectiveSample& s : sweep.samples) {
    const double algbw = s.bytes / s.seconds / 1e9;
    out += fmt::format(" {:>14.0f} {:>12.2f} {:>9.2f} {:>9.2f} {:>12.2f} {:>+8.2f}\n", s.bytes,
                       s.seconds * 1e6, algbw, algbw * factor,
                       alpha_beta_predict(sweep.fit, s.bytes) * 1e6, s.fit_error * 100);
  }
  out += "# alpha-beta fit: t(S) = alpha + beta * S on each size range (continuous, monotone)\n";
  for (const AlphaBetaPoint& p : sweep.fit)
    out += fmt::format(
        "#   [{:>12.0f}, {:>12}) B: alpha = {:9.3f} us, beta = {:.4e} s/B ({:.2f} "
        "GB/s)\n",
        p.min_bytes, std::isinf(p.max_bytes) ? "inf" : fmt::format("{:.0f}", p.max_bytes),
        p.alpha * 1e6, p.beta, p.beta > 0 ? 1e-9 / p.beta : 0.0);
  return out;
}

}  // namespace ddpsim
