#include "sim/profile/nccl_tests_import.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>

#include "sim/util/atomic_file.h"
#include "sim/util/input_error.h"

namespace ddpsim {

namespace {

// What a profile holds (profile_yaml.cpp reads no more back): a measured time above 11 days, a
// size above an exabyte or a time per byte above one second (below 1 B/s) is not a measurement.
constexpr double kMaxSeconds = 1e6, kMaxBytes = 1e18, kMaxBeta = 1;

struct Token {
  std::string text;
  int column = 0;  // 1-based
};

std::vector<Token> tokenize(const std::string& line, size_t from = 0) {
  std::vector<Token> tokens;
  size_t i = from;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    if (i >= line.size()) break;
    const size_t start = i;
    while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    tokens.push_back({line.substr(start, i - start), static_cast<int>(start) + 1});
  }
  return tokens;
}

int type_size(const std::string& type) {
  static const std::pair<const char*, int> kTypes[] = {
      {"int8", 1},   {"uint8", 1},  {"int32", 4},    {"uint32", 4},  {"int64", 8},
      {"uint64", 8}, {"half", 2},   {"float", 4},    {"double", 8},  {"bfloat16", 2},
      {"f8e4m3", 1}, {"f8e5m2", 1}, {"fp8_e4m3", 1}, {"fp8_e5m2", 1}};
  for (const auto& [name, size] : kTypes)
    if (type == name) return size;
  return 0;  // a type this importer does not know: the count check is skipped
}

bool parse_integer(const std::string& text, long long* out) {
  if (text.empty()) return false;
  const char* begin = text.c_str();
  char* end = nullptr;
  errno = 0;
  *out = std::strtoll(begin, &end, 10);
  return end == begin + text.size() && errno != ERANGE;  // ERANGE: clamped to LLONG_MIN/MAX
}

bool parse_real(const std::string& text, double* out) {
  if (text.empty()) return false;
  const char* begin = text.c_str();
  char* end = nullptr;
  *out = std::strtod(begin, &end);
  return end == begin + text.size() && std::isfinite(*out);
}

struct Header {
  int line = 0;
  std::vector<std::string> columns;  // names after the leading '#'
  int size = -1, count = -1, type = -1, time = -1, wrong = -1;
};

bool read_header(const std::string& line, int line_no, Header* header) {
  std::vector<Token> tokens = tokenize(line, 1);  // past the '#'
  if (tokens.empty() || tokens[0].text != "size") return false;
  Header h;
  h.line = line_no;
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& name = tokens[i].text;
    h.columns.push_back(name);
    const int idx = static_cast<int>(i);
    if (name == "size") h.size = idx;
    if (name == "count" && h.count < 0) h.count = idx;
    if (name == "type" && h.type < 0) h.type = idx;
    if (name == "time" && h.time < 0) h.time = idx;
    if (name == "#wrong" && h.wrong < 0) h.wrong = idx;
  }
  if (h.count < 0 || h.time < 0) return false;
  *header = std::move(h);
  return true;
}

}  // namespace

NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& file,
                                  CollectiveOp op) {
  NcclTestsLog log;
  std::optional<Header> header;
  std::set<std::tuple<std::string, std::string, std::string>> ranks;  // host, pid, device
  std::set<std::string> hosts;
  std::istringstream in(text);
  std::string line;
  int line_no = 0;
  auto fail = [&](int column, const std::string& message) {
    throw InputError({file, line_no, column}, message);
  };
  while (std::getline(in, line)) {
    ++line_no;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    size_t first = line.find_first_not_of(" \t");
    if (first == std::string::npos) continue;
    if (line[first] == '#') {
      Header h;
      if (read_header(line.substr(first), line_no, &h)) {
        if (header && !log.samples.empty())
          fail(static_cast<int>(first) + 1,
               "a second table header after data rows: this file holds more than one run; "
               "split it and import each run on its own");
        header = std::move(h);
        continue;
      }
      std::vector<Token> tokens = tokenize(line, first + 1);
      if (!tokens.empty() && tokens[0].text == "Rank") {
        std::string host, pid, device_index, device_name;
        for (size_t i = 1; i + 1 < tokens.size(); ++i) {
          if (tokens[i].text == "on") host = tokens[i + 1].text;
          if (tokens[i].text == "Pid") pid = tokens[i + 1].text;
          if (tokens[i].text == "device" && device_index.empty()) {
            device_index = tokens[i + 1].text;
            // "[0x07] NVIDIA A100-SXM4-80GB": the name follows the bus id.
            size_t name_from = i + 2;
            if (name_from < tokens.size() && tokens[name_from].text.front() == '[') ++name_from;
            if (name_from < tokens.size())
              device_name = line.substr(static_cast<size_t>(tokens[name_from].column) - 1);
          }
        }
        if (!host.empty()) {
          ranks.insert({host, pid, device_index});
          hosts.insert(host);
          if (log.device.empty()) log.device = device_name;
        }
      }
      continue;
    }
    if (line.compare(first, 13, "NCCL version ") == 0) {
      std::vector<Token> tokens = tokenize(line, first);
      if (tokens.size() >= 3 && log.nccl_version.empty()) log.nccl_version = tokens[2].text;
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(line[first]))) continue;  // launcher noise

    // A data row.
    if (!header)
      fail(static_cast<int>(first) + 1,
           "a data row before the column header; expected a line like "
           "'#  size  count  type  redop  root  time  algbw  busbw  #wrong ...'");
    const std::vector<Token> tokens = tokenize(line);
    const Header& h = *header;
    if (tokens.size() != h.columns.size()) {
      const int column = tokens.size() > h.columns.size() ? tokens[h.columns.size()].column
                                                          : static_cast<int>(line.size()) + 1;
      fail(column, fmt::format("expected {} columns as in the header on line {} ({}), got {}",
                               h.columns.size(), h.line, fmt::join(h.columns, " "), tokens.size()));
    }
    long long size = 0, count = 0;
    if (!parse_integer(tokens[h.size].text, &size) || size <= 0)
      fail(tokens[h.size].column,
           "size: expected a positive integer number of bytes, got '" + tokens[h.size].text + "'");
    if (static_cast<double>(size) > kMaxBytes)
      fail(tokens[h.size].column, "size: at most 1e18 bytes, got " + tokens[h.size].text);
    if (!parse_integer(tokens[h.count].text, &count) || count < 0)
      fail(tokens[h.count].column,
           "count: expected a non-negative integer, got '" + tokens[h.count].text + "'");
    if (h.type >= 0 && (op == CollectiveOp::kAllReduce || op == CollectiveOp::kBroadcast)) {
      const int elem = type_size(tokens[h.type].text);
      // count * elem would overflow beyond this: it cannot equal a size anyway.
      const bool huge = elem > 0 && count > std::numeric_limits<long long>::max() / elem;
      if (elem > 0 && (huge || count * elem != size))
        fail(tokens[h.count].column,
             fmt::format("count {} x sizeof({}) = {} differs from size {}: this is not an {} "
                         "log (pass the collective it measured with --op)",
                         count, tokens[h.type].text,
                         huge ? std::string("more than 2^63") : std::to_string(count * elem), size,
                         collective_op_key(op)));
    }
    double time_us = 0;
    // time_us * 1e-6 must stay a positive double (1e-320 us would become 0 s).
    if (!parse_real(tokens[h.time].text, &time_us) || !(time_us * 1e-6 > 0))
      fail(tokens[h.time].column,
           "time: expected a positive number of microseconds, got '" + tokens[h.time].text + "'");
    if (time_us * 1e-6 > kMaxSeconds)
      fail(tokens[h.time].column,
           "time: at most 1e6 seconds (1e12 us), got " + tokens[h.time].text + " us");
    if (h.wrong >= 0) {
      long long wrong = 0;
      const std::string& w = tokens[h.wrong].text;
      if (w != "N/A" && (!parse_integer(w, &wrong) || wrong < 0))
        fail(tokens[h.wrong].column, "#wrong: expected a count or N/A, got '" + w + "'");
      if (wrong > 0)
        fail(tokens[h.wrong].column,
             fmt::format("{} wrong results at size {}: the run is broken, its times are not "
                         "measurements to calibrate with",
                         wrong, size));
    }
    if (!log.samples.empty() && static_cast<double>(size) <= log.samples.back().bytes)
      fail(tokens[h.size].column,
           fmt::format("size {} is not larger than the previous row's {}: sizes must increase "
                       "(is this two runs in one file?)",
                       size, static_cast<long long>(log.samples.back().bytes)));
    log.samples.push_back({static_cast<double>(size), time_us / 1e6, 0});
  }
  if (!header)
    throw InputError({file, 1, 1},
                     "not an nccl-tests log: no column header line "
                     "('#  size  count  type  redop  root  time  algbw  busbw  #wrong ...')");
  if (log.samples.size() < 2)
    throw InputError({file, line_no, 1},
                     fmt::format("expected at least 2 data rows after the header on line {}, "
                                 "got {}",
                                 header->line, log.samples.size()));
  log.ranks = static_cast<int>(ranks.size());
  log.nodes = static_cast<int>(hosts.size());
  return log;
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
                                  AllReduceAlgorithm algorithm,
                                  const AlphaBetaFitOptions& options) {
  const NcclTestsLog log = parse_nccl_tests_log(read_file(path), path, op);
  CollectiveSweep sweep;
  sweep.op = op;
  sweep.algorithm = algorithm;
  sweep.gpus = log.ranks;
  sweep.nodes = log.nodes;
  sweep.source = "nccl-tests: " + path;
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
  out += "# alpha-beta fit: t(S) = alpha + beta * S on each size range\n";
  for (const AlphaBetaPoint& p : sweep.fit)
    out += fmt::format(
        "#   [{:>12.0f}, {:>12}) B: alpha = {:9.3f} us, beta = {:.4e} s/B ({:.2f} "
        "GB/s)\n",
        p.min_bytes, std::isinf(p.max_bytes) ? "inf" : fmt::format("{:.0f}", p.max_bytes),
        p.alpha * 1e6, p.beta, p.beta > 0 ? 1e-9 / p.beta : 0.0);
  return out;
}

}  // namespace ddpsim
