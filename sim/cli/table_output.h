// The tables of `models`, `gpus`, `dataload` and `bench` for programs: --json prints an array of
// objects (one per row, numbers as numbers in SI base units: bytes, FLOP/s, seconds, samples/s),
// --csv the same rows as RFC 4180 CSV with a header (numbers in their shortest exact form).
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace ddpsim::cli {

struct TableFormat {
  bool json = false;
  bool csv = false;
  bool text() const { return !json && !csv; }
};

// Adds --json and --csv (mutually exclusive).
void add_table_format(CLI::App* app, TableFormat* format);

struct OutputTable {
  std::vector<std::string> columns;
  std::vector<std::vector<nlohmann::json>> rows;  // each as wide as `columns`; null = empty
};

// Prints `table` to stdout as JSON or CSV, per `format` (which must not be text()).
void print_table(const OutputTable& table, const TableFormat& format);

}  // namespace ddpsim::cli
