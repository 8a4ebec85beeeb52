// The tables of an nccl-tests log as read from its text (nccl_tests_import.h says which forms
// are accepted): each table's header, rows, units and the run (rank lines, NCCL version) it
// belongs to; then which collective a table measured and which table an import takes.
// read_nccl_tests_tables (nccl_tests_lines.cpp) reads the lines; select_table
// (nccl_tests_tables.cpp) picks one. Internal to nccl_tests_*.cpp.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "sim/measurements/calibration_profile.h"

namespace ddpsim::nccl_tests {

// What a profile holds (profile_node_reader.h reads no more back): a measured time above 11
// days, a size above an exabyte or a time per byte above one second (below 1 B/s) is not a
// measurement.
constexpr double kMaxSeconds = 1e6, kMaxBytes = 1e18, kMaxBeta = 1;
// Data rows of one table: nccl-tests prints 30 to 40 with -f 2 (8 B to 16 GiB), 1024 with
// -i 1M up to 1 GiB. The alpha-beta fit grows about as the square of the rows (512 rows 1 s,
// 100,000 rows 75 s and 21 GB), so a table beyond this is refused at its first row too many
// (docs/reliability.md).
constexpr size_t kMaxRows = 1024;

constexpr const char* kHeaderExample =
    "'#  size  count  type  redop  root  time  algbw  busbw  #wrong ...'";

enum class TimeUnit { kUnknown, kMicroseconds, kMilliseconds };

inline const char* unit_name(TimeUnit u) {
  return u == TimeUnit::kMilliseconds ? "milliseconds" : "microseconds";
}
inline const char* unit_symbol(TimeUnit u) { return u == TimeUnit::kMilliseconds ? "ms" : "us"; }
inline double unit_seconds(TimeUnit u) { return u == TimeUnit::kMilliseconds ? 1e-3 : 1e-6; }

struct Header {
  int line = 0;
  std::vector<std::string> columns;  // names after the leading '#'
  int size = -1, count = -1, type = -1, redop = -1, root = -1, time = -1, algbw = -1, busbw = -1,
      wrong = -1;
  bool old_style = false;              // "bytes N type op time ... res": times in milliseconds
  TimeUnit unit = TimeUnit::kUnknown;  // from the units line "(us)" / "(ms)"
};

struct Row {
  int line = 0;
  long long size = 0, count = 0;
  std::string type, redop;
  long long root = -1;
  double time = 0;    // in the table's unit
  double algbw = -1;  // GB/s as printed; -1 when absent or unreadable
  long long wrong = 0;
  int size_column = 0, count_column = 0, time_column = 0, wrong_column = 0;
  std::string time_text;
};

// The run a table belongs to: its rank lines and NCCL version.
struct RunInfo {
  std::set<std::tuple<std::string, std::string, std::string, std::string>> ranks;
  std::set<std::string> hosts;
  std::string device, host, nccl_version, backend;
  int device_line = 0;
};

struct Table {
  Header header;
  std::string declared;  // collective named by the *_perf binary before it ("" when none)
  RunInfo run;
  std::vector<Row> rows;  // size > 0 only
  int last_line = 0;      // last row, size-0 rows included
  bool closed = false;    // "# Avg bus bandwidth" / "# Out of bounds values" seen
};

// Bytes of an nccl-tests data type ("float": 4); 0 for a type this importer does not know.
int type_size(const std::string& type);

// Every table of the log, in order; InputError at a malformed row or line.
std::vector<Table> read_nccl_tests_tables(const std::string& text, const std::string& file);

// The collective a table measured: the *_perf binary named before it, else what its rows imply.
std::optional<CollectiveOp> table_op(const Table& t);
// The time unit of a table's time column.
TimeUnit table_unit(const Table& t);
// The table of `op`: the only one, or the `index`-th (1-based) of several; its rows checked
// against `op` (count x sizeof(type) == size where `op` says so).
const Table& select_table(const std::vector<Table>& tables, CollectiveOp op, int index,
                          const std::string& file);

}  // namespace ddpsim::nccl_tests
