// Reading an nccl-tests log line by line (nccl_tests_table.h): launcher prefixes, column
// headers of every nccl-tests generation, units lines, rank lines, footers, the *_perf binary a
// command line names, and data rows checked against their header.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include "sim/measurements/nccl_tests_table.h"
#include "sim/text/input_error.h"

namespace ddpsim::nccl_tests {

namespace {

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
    if (name == "busbw") first(&h.busbw, idx);
    if (name == "#wrong") first(&h.wrong, idx);
  }
  if (h.count < 0 || h.time < 0) return false;
  *header = std::move(h);
  return true;
}

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
    // Inside a table, a line with the header's columns that starts with a number other than a
    // plain integer ("-8", "1e30", "nan") is a row with a bad size, not prose to skip.
    if (Table* open = open_table();
        open != nullptr && tokens.size() == open->header.columns.size() && numeric(tokens[0].text))
      return row(*open, line, tokens);
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
    // strtod and every C string stop at a NUL: a row holding one would be read short.
    if (const size_t nul = line.find('\0'); nul != std::string::npos)
      fail(static_cast<int>(nul) + 1,
           "a NUL byte inside a data row: this is binary data, not the text nccl-tests prints; "
           "allowed: digits, letters, '.', '-', '+' and blanks");
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
    for (const int column : {h.algbw, h.busbw})
      if (column >= 0) check_bandwidth(h.columns[static_cast<size_t>(column)], tokens[column]);
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
    if (t.rows.size() >= kMaxRows)
      fail(r.size_column,
           fmt::format("more than {} data rows in the table of line {}: nccl-tests prints about "
                       "35 (-f 2 from 8 B to 16 GiB); import a run with fewer sizes",
                       kMaxRows, h.line));
    t.rows.push_back(std::move(r));
    declared_.clear();  // the next table names its own collective
  }

  // A bandwidth column nccl-tests printed: a number >= 0 (it prints N/A for none), never NaN,
  // infinite or negative, which only a broken run or an edited log holds.
  void check_bandwidth(const std::string& name, const Token& token) const {
    const std::string& text = token.text;
    if (text == "N/A") return;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    const bool number = !text.empty() && end == text.c_str() + text.size();
    if (!number || !std::isfinite(v) || v < 0)
      fail(token.column,
           fmt::format("{}: expected a bandwidth in GB/s (a finite number >= 0, or N/A), got '{}'",
                       name, text));
  }

  // A token strtod reads whole: an integer, a real, "nan" or "inf", with a sign.
  static bool numeric(const std::string& text) {
    char* end = nullptr;
    std::strtod(text.c_str(), &end);
    return !text.empty() && end == text.c_str() + text.size();
  }

  std::string file_;
  int line_no_ = 0;
  std::vector<Table> tables_;
  RunInfo run_;
  std::string declared_;
};

}  // namespace

std::vector<Table> read_nccl_tests_tables(const std::string& text, const std::string& file) {
  Parser parser(file);
  return parser.parse(text);
}

}  // namespace ddpsim::nccl_tests
