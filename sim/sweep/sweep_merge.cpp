#include "sim/sweep/sweep_merge.h"

#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>

#include "sim/output/atomic_file.h"
#include "sim/output/output_folder.h"
#include "sim/sweep/results_csv.h"
#include "sim/sweep/sweep_store.h"
#include "sim/text/input_error.h"
#include "sim/text/input_file.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

struct Input {
  std::string name;  // as given, for messages
  std::string csv;
  std::string points_dir;  // "" when the input is a bare CSV
  std::optional<nlohmann::json> manifest;
  CsvTable table;
};

Input read_input(const std::string& path) {
  Input in;
  in.name = path;
  std::error_code ec;
  if (fs::is_directory(path, ec)) {
    in.csv = path + "/results.csv";
    in.points_dir = path + "/points";
    if (!fs::exists(fs::symlink_status(in.csv, ec))) {
      throw InputError(SourceLocation{path, 0, 0},
                       "no results.csv in this folder: expected the -o folder of a ddpsim sweep");
    }
    const std::string manifest = path + "/sweep.json";
    if (fs::exists(fs::symlink_status(manifest, ec))) {
      const std::string text =
          read_regular_file(manifest, "sweep manifest (sweep.json)", kMaxResultsFileBytes);
      try {
        in.manifest = nlohmann::json::parse(text);
      } catch (const nlohmann::json::exception& e) {
        throw InputError(SourceLocation{manifest, 0, 0},
                         std::string("not a sweep manifest: ") + e.what());
      }
    }
  } else {
    in.csv = path;
  }
  in.table = parse_csv(read_regular_file(in.csv, "results.csv", kMaxResultsFileBytes), in.csv);
  for (const char* column : {"point", "point_id", "status"}) {
    if (csv_column(in.table, column) < 0) {
      throw InputError(SourceLocation{in.csv, 1, 0},
                       std::string("not a ddpsim sweep results.csv: no '") + column + "' column");
    }
  }
  return in;
}

size_t point_index(const Input& in, const std::vector<std::string>& row, int column) {
  const std::string& text = row[static_cast<size_t>(column)];
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    throw InputError(SourceLocation{in.csv, 0, 0}, "point '" + text + "' is not a point index");
  }
  return std::stoul(text);
}

}  // namespace

MergeReport merge_sweeps(const std::vector<std::string>& inputs, const std::string& out_dir) {
  if (inputs.empty()) {
    throw InputError(SourceLocation{"<merge>", 0, 0}, "nothing to merge: give sweep folders");
  }
  check_output_folder(out_dir, "-o");
  std::error_code ec;
  const fs::path out_canonical = fs::weakly_canonical(out_dir, ec);
  std::vector<Input> all;
  for (const std::string& path : inputs) {
    if (fs::weakly_canonical(path, ec) == out_canonical) {
      throw InputError(SourceLocation{path, 0, 0},
                       "the merge output must not be one of its inputs; choose another -o");
    }
    all.push_back(read_input(path));
  }

  const Input& first = all.front();
  const nlohmann::json* manifest = nullptr;
  for (const Input& in : all) {
    if (in.table.header != first.table.header) {
      throw InputError(
          SourceLocation{in.csv, 1, 0},
          "its columns differ from " + first.csv + ": only shards of the same sweep can be merged");
    }
    if (!in.manifest) continue;
    if (!manifest) {
      manifest = &*in.manifest;
    } else if (in.manifest->value("axes", nlohmann::json()) !=
                   manifest->value("axes", nlohmann::json()) ||
               in.manifest->value("point_ids", nlohmann::json()) !=
                   manifest->value("point_ids", nlohmann::json())) {
      throw InputError(SourceLocation{in.name + "/sweep.json", 0, 0},
                       "a different sweep than the other inputs (its axes, base scenario or "
                       "options differ): only shards of the same sweep can be merged");
    }
  }

  const int point_col = csv_column(first.table, "point");
  const int id_col = csv_column(first.table, "point_id");
  const int status_col = csv_column(first.table, "status");
  struct Chosen {
    const std::vector<std::string>* row;
    const Input* from;
  };
  std::map<size_t, Chosen> rows;
  MergeReport report;
  for (const Input& in : all) {
    for (const auto& row : in.table.rows) {
      const size_t index = point_index(in, row, point_col);
      auto [it, inserted] = rows.emplace(index, Chosen{&row, &in});
      if (inserted) continue;
      const auto& kept = *it->second.row;
      if (kept == row) {
        ++report.duplicates;
      } else if (kept[static_cast<size_t>(status_col)] != "ok" &&
                 row[static_cast<size_t>(status_col)] == "ok") {
        it->second = Chosen{&row, &in};
      } else if (row[static_cast<size_t>(status_col)] == "ok") {
        throw InputError(SourceLocation{in.csv, 0, 0},
                         "point " + std::to_string(index) + " differs from the same point in " +
                             it->second.from->csv + ": these are not shards of one sweep run");
      }
    }
  }

  SweepStore store(out_dir);
  CsvTable merged;
  merged.header = first.table.header;
  for (const auto& [index, chosen] : rows) {
    merged.rows.push_back(*chosen.row);
    if ((*chosen.row)[static_cast<size_t>(status_col)] != "ok") ++report.failed;
    const std::string& id = (*chosen.row)[static_cast<size_t>(id_col)];
    if (chosen.from->points_dir.empty() || id.empty()) continue;
    for (const std::string suffix : {".trace.json", ".json"}) {
      const fs::path source = fs::path(chosen.from->points_dir) / (id + suffix);
      if (fs::is_regular_file(source, ec)) {
        fs::copy_file(source, fs::path(out_dir) / "points" / (id + suffix),
                      fs::copy_options::overwrite_existing, ec);
        if (ec) {
          throw InputError(SourceLocation{source.string(), 0, 0},
                           "cannot copy into " + out_dir + ": " + ec.message());
        }
      }
    }
  }
  report.rows = merged.rows.size();
  if (manifest) {
    nlohmann::json out_manifest = *manifest;
    out_manifest["shard"] = "0/1";
    out_manifest["merged_from"] = inputs;
    report.points = out_manifest.value("points", size_t{0});
    for (size_t i = 0; i < report.points; ++i) {
      if (!rows.count(i)) report.missing.push_back(i);
    }
    write_file_atomic(store.manifest_path(), out_manifest.dump(2) + "\n");
  }
  write_file_atomic(store.csv_path(), format_csv(merged));
  return report;
}

}  // namespace ddpsim
