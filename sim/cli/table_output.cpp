#include "sim/cli/table_output.h"

#include <cstdio>

#include "sim/sweep/results_csv.h"

namespace ddpsim::cli {

void add_table_format(CLI::App* app, TableFormat* format) {
  auto* json = app->add_flag("--json", format->json, "Print the table as JSON (an array of rows)");
  app->add_flag("--csv", format->csv, "Print the table as CSV")->excludes(json);
}

void print_table(const OutputTable& table, const TableFormat& format) {
  if (format.json) {
    nlohmann::json rows = nlohmann::json::array();
    for (const auto& row : table.rows) {
      nlohmann::json object = nlohmann::json::object();
      for (size_t c = 0; c < table.columns.size(); ++c) object[table.columns[c]] = row[c];
      rows.push_back(object);
    }
    std::printf("%s\n", rows.dump(2).c_str());
    return;
  }
  CsvTable csv;
  csv.header = table.columns;
  for (const auto& row : table.rows) {
    std::vector<std::string> cells;
    for (const nlohmann::json& cell : row) {
      if (cell.is_null()) {
        cells.emplace_back();
      } else if (cell.is_string()) {
        cells.push_back(cell.get<std::string>());
      } else if (cell.is_boolean()) {
        cells.push_back(cell.get<bool>() ? "true" : "false");
      } else if (cell.is_number_integer()) {
        cells.push_back(cell.dump());
      } else {
        cells.push_back(format_number(cell.get<double>()));
      }
    }
    csv.rows.push_back(cells);
  }
  std::printf("%s", format_csv(csv).c_str());
}

}  // namespace ddpsim::cli
