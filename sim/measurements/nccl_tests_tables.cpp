// Which collective an nccl-tests table measured, the unit of its time column, and which table
// of a log an import takes (nccl_tests_table.h).
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cmath>
#include <limits>

#include "sim/measurements/nccl_tests_table.h"
#include "sim/text/input_error.h"

namespace ddpsim::nccl_tests {

int type_size(const std::string& type) {
  static const std::pair<const char*, int> kTypes[] = {
      {"int8", 1},   {"uint8", 1},   {"int32", 4},    {"uint32", 4},   {"int64", 8},
      {"uint64", 8}, {"half", 2},    {"float", 4},    {"double", 8},   {"bfloat16", 2},
      {"f8e4m3", 1}, {"f8e5m2", 1},  {"fp8_e4m3", 1}, {"fp8_e5m2", 1}, {"char", 1},
      {"int", 4},    {"float16", 2}, {"float32", 4},  {"float64", 8},  {"uint", 4}};
  for (const auto& [name, size] : kTypes)
    if (type == name) return size;
  return 0;  // a type this importer does not know: the count checks are skipped
}

namespace {

// The collective a table's rows imply: count x sizeof(type) against size, the reduction op and
// the root. nullopt: another collective (reduce, alltoall, ...) or rows that do not say.
std::optional<CollectiveOp> implied_op(const Table& t) {
  for (const Row& r : t.rows) {
    const int elem = type_size(r.type);
    if (elem == 0 || r.count <= 0 || r.count > std::numeric_limits<long long>::max() / elem)
      continue;
    const long long per = r.count * elem;
    if (r.size % per != 0) return std::nullopt;
    // No redop column (all_gather and broadcast tables before 2021): nothing is reduced.
    const bool none = r.redop == "none" || t.header.redop < 0;
    const bool rooted = t.header.root >= 0 && r.root >= 0;
    if (r.size == per) {
      if (rooted) return none ? std::optional(CollectiveOp::kBroadcast) : std::nullopt;
      return none ? std::nullopt : std::optional(CollectiveOp::kAllReduce);
    }
    if (rooted) return std::nullopt;
    return none ? CollectiveOp::kAllGather : CollectiveOp::kReduceScatter;
  }
  return std::nullopt;
}

}  // namespace

std::optional<CollectiveOp> table_op(const Table& t) {
  if (!t.declared.empty()) return parse_collective_op_key(t.declared);
  return implied_op(t);
}

namespace {

std::string table_name(const Table& t) {
  if (!t.declared.empty()) return t.declared;
  if (auto op = implied_op(t)) return collective_op_key(*op);
  return "an unknown collective";
}

// Rows of `op` must have count x sizeof(type) == size (all-reduce, broadcast: count is the whole
// buffer): a log of another collective, or a row that contradicts its table.
void check_counts(const Table& t, CollectiveOp op, const std::string& file) {
  if (op != CollectiveOp::kAllReduce && op != CollectiveOp::kBroadcast) return;
  for (const Row& r : t.rows) {
    const int elem = type_size(r.type);
    if (elem == 0) continue;
    // count * elem would overflow beyond this: it cannot equal a size anyway.
    const bool huge = r.count > std::numeric_limits<long long>::max() / elem;
    if (huge || r.count * elem != r.size)
      throw InputError(
          {file, r.line, r.count_column},
          fmt::format("count {} x sizeof({}) = {} differs from size {}: this is not an {} log "
                      "(pass the collective it measured with --op)",
                      r.count, r.type,
                      huge ? std::string("more than 2^63") : std::to_string(r.count * elem), r.size,
                      collective_op_key(op)));
  }
}

}  // namespace

// The time unit: the units line, else the one that reproduces the algbw column (algbw = size /
// time for every nccl-tests collective), else the header's generation.
TimeUnit table_unit(const Table& t) {
  if (t.header.unit != TimeUnit::kUnknown) return t.header.unit;
  int votes_ms = 0, votes_us = 0;
  for (const Row& r : t.rows) {
    if (r.algbw < 0.1 || !(r.time > 0)) continue;
    const double us = r.size / (r.time * 1e-6) / 1e9, ms = r.size / (r.time * 1e-3) / 1e9;
    (std::abs(std::log(ms / r.algbw)) < std::abs(std::log(us / r.algbw)) ? votes_ms : votes_us)++;
  }
  if (votes_ms != votes_us)
    return votes_ms > votes_us ? TimeUnit::kMilliseconds : TimeUnit::kMicroseconds;
  return t.header.old_style ? TimeUnit::kMilliseconds : TimeUnit::kMicroseconds;
}

// The table of `op`: the only one, or the `index`-th (1-based) of several.
const Table& select_table(const std::vector<Table>& tables, CollectiveOp op, int index,
                          const std::string& file) {
  std::vector<const Table*> matching;
  for (const Table& t : tables)
    if (table_op(t) == op) matching.push_back(&t);
  // A lone table of no declared collective is taken as `op` if its rows agree (check_counts
  // below says at which row they do not).
  if (matching.empty() && tables.size() == 1 && tables[0].declared.empty())
    matching.push_back(&tables[0]);
  const std::string name = collective_op_key(op);
  std::vector<int> lines;
  for (const Table* t : matching) lines.push_back(t->header.line);
  if (index > 0) {
    if (index <= static_cast<int>(matching.size())) {
      check_counts(*matching[index - 1], op, file);
      return *matching[index - 1];
    }
    throw InputError(
        {file, 1, 1},
        fmt::format("--table {}: this log has {} {} table(s){}", index, matching.size(), name,
                    matching.empty() ? std::string()
                                     : fmt::format(" (header lines {})", fmt::join(lines, ", "))));
  }
  if (matching.size() > 1)
    throw InputError({file, matching[1]->header.line, 1},
                     fmt::format("{} {} tables in this file (header lines {}): pass --table 1 to "
                                 "--table {} to import one of them",
                                 matching.size(), name, fmt::join(lines, ", "), matching.size()));
  if (matching.size() == 1) {
    check_counts(*matching[0], op, file);  // every row, not only those that implied `op`
    return *matching[0];
  }
  std::vector<std::string> found;
  for (const Table& t : tables)
    found.push_back(fmt::format("{} (line {})", table_name(t), t.header.line));
  throw InputError({file, tables[0].header.line, 1},
                   fmt::format("no {} table in this log; its tables are: {}; pass the one to "
                               "import with --op",
                               name, fmt::join(found, ", ")));
}

}  // namespace ddpsim::nccl_tests
