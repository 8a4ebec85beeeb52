#include "sim/profile/nccl_tests_import.h"

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

#include "sim/util/atomic_file.h"
#include "sim/util/input_error.h"
#include "sim/util/input_file.h"

namespace ddpsim {

namespace {

// What a profile holds (profile_yaml.cpp reads no more back): a measured time above 11 days, a
// size above an exabyte or a time per byte above one second (below 1 B/s) is not a measurement.
constexpr double kMaxSeconds = 1e6, kMaxBytes = 1e18, kMaxBeta = 1;

constexpr const char* kHeaderExample =
    "'#  size  count  type  redop  root  time  algbw  busbw  #wrong ...'";

struct Token {
  std::string text;
  int column = 0;  // 1-based, in the whole line (launcher prefix included)
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
      {"int8", 1},   {"uint8", 1},   {"int32", 4},    {"uint32", 4},   {"int64", 8},
      {"uint64", 8}, {"half", 2},    {"float", 4},    {"double", 8},   {"bfloat16", 2},
      {"f8e4m3", 1}, {"f8e5m2", 1},  {"fp8_e4m3", 1}, {"fp8_e5m2", 1}, {"char", 1},
      {"int", 4},    {"float16", 2}, {"float32", 4},  {"float64", 8},  {"uint", 4}};
  for (const auto& [name, size] : kTypes)
    if (type == name) return size;
  return 0;  // a type this importer does not know: the count checks are skipped
}

bool all_digits(const std::string& text) {
  return !text.empty() &&
         std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
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

// Where a line's own text starts, past leading blanks and one launcher prefix: Open MPI
// --tag-output "[1,0]<stdout>:", MPICH/Intel MPI -prepend-rank "[0] ", Slurm srun --label "0: ".
size_t payload_start(const std::string& line) {
  size_t i = line.find_first_not_of(" \t");
  if (i == std::string::npos) return line.size();
  auto digits = [&](size_t at) {
    size_t j = at;
    while (j < line.size() && std::isdigit(static_cast<unsigned char>(line[j]))) ++j;
    return j;
  };
  if (line[i] == '[') {
    size_t j = digits(i + 1);
    if (j == i + 1) return i;
    if (j < line.size() && line[j] == ',') {
      const size_t k = digits(j + 1);
      if (k == j + 1 || k >= line.size() || line[k] != ']') return i;
      for (const char* stream : {"]<stdout>:", "]<stderr>:"})
        if (line.compare(k, std::char_traits<char>::length(stream), stream) == 0)
          return k + std::char_traits<char>::length(stream);
      return i;
    }
    if (j < line.size() && line[j] == ']' && j + 1 < line.size() &&
        (line[j + 1] == ' ' || line[j + 1] == ':'))
      return j + 2;
    return i;
  }
  const size_t j = digits(i);
  if (j > i && j + 1 < line.size() && line[j] == ':' && line[j + 1] == ' ') return j + 2;
  return i;
}

enum class TimeUnit { kUnknown, kMicroseconds, kMilliseconds };

const char* unit_name(TimeUnit u) {
  return u == TimeUnit::kMilliseconds ? "milliseconds" : "microseconds";
}
const char* unit_symbol(TimeUnit u) { return u == TimeUnit::kMilliseconds ? "ms" : "us"; }
double unit_seconds(TimeUnit u) { return u == TimeUnit::kMilliseconds ? 1e-3 : 1e-6; }

struct Header {
  int line = 0;
  std::vector<std::string> columns;  // names after the leading '#'
  int size = -1, count = -1, type = -1, redop = -1, root = -1, time = -1, algbw = -1, wrong = -1;
  bool old_style = false;              // "bytes N type op time ... res": times in milliseconds
  TimeUnit unit = TimeUnit::kUnknown;  // from the units line "(us)" / "(ms)"
};

// A column header: "size count type redop root time algbw busbw #wrong ...", or the 2019 /
// NCCL 1.x form "bytes N type op time algbw busbw res ...". Names repeat for the in-place half;
// the first (out-of-place) one is used.
bool read_header(const std::vector<Token>& tokens, int line_no, Header* header) {
  if (tokens[0].text != "size" && tokens[0].text != "bytes") return false;
  Header h;
  h.line = line_no;
  h.old_style = tokens[0].text == "bytes";
  auto first = [](int* index, int i) {
    if (*index < 0) *index = i;
  };
  for (size_t i = 0; i < tokens.size(); ++i) {
    const std::string& name = tokens[i].text;
    const int idx = static_cast<int>(i);
    h.columns.push_back(name);
    if (name == "size" || name == "bytes") first(&h.size, idx);
    if (name == "count" || name == "N") first(&h.count, idx);
    if (name == "type") first(&h.type, idx);
    if (name == "redop" || name == "op") first(&h.redop, idx);
    if (name == "root") first(&h.root, idx);
    if (name == "time") first(&h.time, idx);
    if (name == "algbw") first(&h.algbw, idx);
    if (name == "#wrong") first(&h.wrong, idx);
  }
  if (h.count < 0 || h.time < 0) return false;
  *header = std::move(h);
  return true;
}

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

// "all_gather_perf", "./build/all_gather_perf", "all_gather_perf_mpi" -> "all_gather"; anything
// else (a name in quotes or backticks is prose, not a command) -> "".
std::string perf_binary_collective(std::string token) {
  const bool path_chars = std::all_of(token.begin(), token.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '/' || c == '.' ||
           c == '-';
  });
  if (!path_chars) return {};
  const size_t slash = token.find_last_of('/');
  if (slash != std::string::npos) token = token.substr(slash + 1);
  for (const char* suffix : {"_perf_mpi", "_perf"}) {
    const size_t n = std::char_traits<char>::length(suffix);
    if (token.size() > n && token.compare(token.size() - n, n, suffix) == 0) {
      const std::string name = token.substr(0, token.size() - n);
      const bool word = std::all_of(name.begin(), name.end(), [](char c) {
        return std::islower(static_cast<unsigned char>(c)) || c == '_';
      });
      return word ? name : std::string();
    }
  }
  return {};
}

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

std::optional<CollectiveOp> table_op(const Table& t) {
  if (!t.declared.empty()) return parse_collective_op_key(t.declared);
  return implied_op(t);
}

std::string table_name(const Table& t) {
  if (!t.declared.empty()) return t.declared;
  if (auto op = implied_op(t)) return collective_op_key(*op);
  return "an unknown collective";
}

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

class Parser {
 public:
  explicit Parser(const std::string& file) : file_(file) {}

  // Every line is read the same way after its launcher prefix: an optional '#' (logs pasted
  // where Markdown ate it have none), then a header, a units line, a rank line, a footer, a
  // "Collective test starting" or "NCCL version" line, a data row, or anything else (ignored).
  std::vector<Table> parse(const std::string& text) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
      ++line_no_;
      if (!line.empty() && line.back() == '\r') line.pop_back();
      const size_t first = line.find_first_not_of(" \t", payload_start(line));
      if (first == std::string::npos) continue;
      const bool hash = line[first] == '#';
      const std::vector<Token> tokens = tokenize(line, hash ? first + 1 : first);
      if (tokens.empty()) continue;
      if (!known_line(line, tokens) && !hash) other(line, tokens);
    }
    return std::move(tables_);
  }

 private:
  [[noreturn]] void fail(int column, const std::string& message) const {
    throw InputError({file_, line_no_, column}, message);
  }

  Table* open_table() {
    return tables_.empty() || tables_.back().closed ? nullptr : &tables_.back();
  }

  // Lines with a meaning of their own; false for rows and everything else.
  bool known_line(const std::string& line, const std::vector<Token>& tokens) {
    Header h;
    if (read_header(tokens, line_no_, &h)) {
      // A header repeated before any row (every process of a non-MPI run prints one) replaces
      // the empty table; otherwise a new table starts.
      if (!tables_.empty() && tables_.back().last_line == 0) tables_.pop_back();
      Table t;
      t.header = std::move(h);
      t.declared = declared_;
      t.run = run_;
      tables_.push_back(std::move(t));
      return true;
    }
    Table* open = open_table();
    if (open != nullptr && open->last_line == 0 && open->header.unit == TimeUnit::kUnknown) {
      for (const Token& t : tokens) {
        if (t.text == "(us)") open->header.unit = TimeUnit::kMicroseconds;
        if (t.text == "(ms)") open->header.unit = TimeUnit::kMilliseconds;
      }
    }
    const std::string& word = tokens[0].text;
    const bool second = tokens.size() >= 2;
    if (word == "nThread") {
      run_ = RunInfo{};  // a new run: its own rank lines follow
    } else if (word == "Rank" || word == "Device") {
      rank_line(line, tokens);
    } else if (second && ((word == "Avg" && tokens[1].text == "bus") ||
                          (word == "Out" && tokens[1].text == "of"))) {
      if (open != nullptr) open->closed = true;
    } else if (second && word == "Collective" && tokens[1].text == "test" && tokens.size() >= 4 &&
               tokens[2].text == "starting:") {
      declared_ = perf_binary_collective(tokens[3].text);
    } else if (second && word == "NCCL" && tokens[1].text == "version") {
      if (tokens.size() >= 3 && run_.nccl_version.empty()) run_.nccl_version = tokens[2].text;
    } else if (second && word == "Backend") {
      // "# Backend gloo (torch.distributed, PyTorch 1.13.0a0)": the rest of the line.
      run_.backend = line.substr(static_cast<size_t>(tokens[1].column) - 1);
    } else {
      return false;
    }
    return true;
  }

  // "Rank 0 Group 0 Pid 4242 on HOST device 0 [0x07] NAME" (older: no Group, no Pid);
  // NCCL 1.x: "Device 0 -> 0 [0x0a] NAME" (one process, one host).
  void rank_line(const std::string& line, const std::vector<Token>& tokens) {
    if (tokens.size() < 2) return;
    std::string host = tokens[0].text == "Device" ? "localhost" : "";
    std::string pid, device_index, device_name;
    for (size_t i = 1; i + 1 < tokens.size(); ++i) {
      const std::string& t = tokens[i].text;
      if (t == "on" && host.empty()) host = tokens[i + 1].text;
      if (t == "Pid") pid = tokens[i + 1].text;
      const bool names_device = t == "device" || (tokens[0].text == "Device" && t == "->");
      if (names_device && device_index.empty()) {
        device_index = tokens[i + 1].text;
        // "[0x07] NVIDIA A100-SXM4-80GB": the name follows the bus id.
        size_t name_from = i + 2;
        if (name_from < tokens.size() && tokens[name_from].text.front() == '[') ++name_from;
        if (name_from < tokens.size())
          device_name = line.substr(static_cast<size_t>(tokens[name_from].column) - 1);
      }
    }
    if (host.empty()) return;
    run_.ranks.insert({tokens[1].text, host, pid, device_index});
    run_.hosts.insert(host);
    if (run_.device.empty()) {
      run_.device = device_name;
      run_.device_line = line_no_;
    }
    if (run_.host.empty()) run_.host = host;
  }

  void other(const std::string& line, const std::vector<Token>& tokens) {
    if (!all_digits(tokens[0].text)) {
      // A command line names the binary it runs; prose that lists several does not declare.
      std::set<std::string> named;
      for (const Token& t : tokens) {
        const std::string name = perf_binary_collective(t.text);
        if (!name.empty()) named.insert(name);
      }
      if (named.size() == 1) declared_ = *named.begin();
      return;  // launcher noise, NCCL INFO lines, prose
    }
    Table* open = open_table();
    // A line that looks like a row (integer, integer, data type) outside a table.
    const bool row_like =
        tokens.size() >= 4 && all_digits(tokens[1].text) && type_size(tokens[2].text) > 0;
    if (open == nullptr) {
      if (!row_like) return;
      if (tables_.empty())
        fail(tokens[0].column, std::string("a data row before the column header; expected a "
                                           "line like ") +
                                   kHeaderExample);
      fail(tokens[0].column,
           fmt::format("a data row after the end of the table of line {} (its '# Avg bus "
                       "bandwidth' line); a table's rows come between its header and that line",
                       tables_.back().header.line));
    }
    row(*open, line, tokens);
  }

  void row(Table& t, const std::string& line, const std::vector<Token>& tokens) {
    const Header& h = t.header;
    if (tokens.size() != h.columns.size()) {
      const int column = tokens.size() > h.columns.size() ? tokens[h.columns.size()].column
                                                          : static_cast<int>(line.size()) + 1;
      fail(column, fmt::format("expected {} columns as in the header on line {} ({}), got {}",
                               h.columns.size(), h.line, fmt::join(h.columns, " "), tokens.size()));
    }
    Row r;
    r.line = line_no_;
    r.size_column = tokens[h.size].column;
    r.count_column = tokens[h.count].column;
    r.time_column = tokens[h.time].column;
    if (!parse_integer(tokens[h.size].text, &r.size) || r.size < 0)
      fail(r.size_column, "size: expected a non-negative integer number of bytes, got '" +
                              tokens[h.size].text + "'");
    if (static_cast<double>(r.size) > kMaxBytes)
      fail(r.size_column, "size: at most 1e18 bytes, got " + tokens[h.size].text);
    if (!parse_integer(tokens[h.count].text, &r.count) || r.count < 0)
      fail(r.count_column,
           "count: expected a non-negative integer, got '" + tokens[h.count].text + "'");
    if (h.type >= 0) r.type = tokens[h.type].text;
    if (h.redop >= 0) r.redop = tokens[h.redop].text;
    if (h.root >= 0 && !parse_integer(tokens[h.root].text, &r.root))
      fail(tokens[h.root].column,
           "root: expected an integer rank (-1: none), got '" + tokens[h.root].text + "'");
    r.time_text = tokens[h.time].text;
    const TimeUnit unit = h.unit != TimeUnit::kUnknown
                              ? h.unit
                              : (h.old_style ? TimeUnit::kMilliseconds : TimeUnit::kMicroseconds);
    if (!parse_real(r.time_text, &r.time) || r.time < 0)
      fail(r.time_column, std::string("time: expected a positive number of ") + unit_name(unit) +
                              ", got '" + r.time_text + "'");
    if (h.algbw >= 0 && !parse_real(tokens[h.algbw].text, &r.algbw)) r.algbw = -1;
    if (h.wrong >= 0) {
      const std::string& w = tokens[h.wrong].text;
      r.wrong_column = tokens[h.wrong].column;
      if (w != "N/A" && (!parse_integer(w, &r.wrong) || r.wrong < 0))
        fail(r.wrong_column, "#wrong: expected a count or N/A, got '" + w + "'");
    }
    t.last_line = line_no_;
    if (r.size == 0) return;  // "-b 0": nothing moved
    if (!t.rows.empty() && r.size <= t.rows.back().size) {
      const Row& prev = t.rows.back();
      const bool mixed = prev.type != r.type || prev.redop != r.redop;
      fail(r.size_column,
           fmt::format("size {} is not larger than the previous row's {}: sizes must increase "
                       "({})",
                       r.size, prev.size,
                       mixed ? "this table mixes data types or reduction ops (-d all / -o all); "
                               "import a run of one type and one op"
                             : "is this two runs in one file?"));
    }
    t.rows.push_back(std::move(r));
    declared_.clear();  // the next table names its own collective
  }

  std::string file_;
  int line_no_ = 0;
  std::vector<Table> tables_;
  RunInfo run_;
  std::string declared_;
};

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

}  // namespace

NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& file, CollectiveOp op,
                                  int table) {
  Parser parser(file);
  const std::vector<Table> tables = parser.parse(text);
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
