// results.csv of a sweep: one row per point, sorted by point index. The columns are documented
// in docs/results-csv.md: point, point_id, status, one column per swept key (the value as
// written), fixed columns describing the resolved scenario, then the result's numbers, its
// provenance (ddpsim_version, source_commit, inputs_sha256) and `error` last. A number that was
// not computed (the single-GPU baseline under --no-baseline) is an empty cell. Numbers are written
// in the shortest form that reads back exactly, so a row is a pure function of its point and two
// runs of the same sweep give byte-identical files. A sweep run with --uncertainty adds the band
// columns (band_columns) after the result's numbers; without it the file is as before.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/results/band.h"
#include "sim/results/provenance.h"
#include "sim/results/result.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct CsvTable {
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};

struct PointKey {
  size_t index = 0;
  std::string id;
  std::vector<std::string> swept_values;  // per axis, canonical text
};

// The p10/p50/p90 columns of samples/s, iteration time and exposed communication share, then
// the number of draws (--uncertainty).
const std::vector<std::string>& band_columns();

std::vector<std::string> results_csv_header(const std::vector<std::string>& swept_keys,
                                            bool bands = false);

// `bands`: the point's bands when the sweep has band columns, else nullptr.
std::vector<std::string> results_csv_row(const PointKey& point, const Scenario& scenario,
                                         const SimulationResult& result,
                                         const Provenance& provenance,
                                         const ResultBands* bands = nullptr);
// A point whose simulation failed: scenario columns filled, result (and band) columns empty, the
// version of the ddpsim that tried.
std::vector<std::string> failed_csv_row(const PointKey& point, const Scenario& scenario,
                                        const std::string& error, bool bands = false);

// Position of a named column, or -1.
int csv_column(const CsvTable& table, const std::string& name);

// RFC 4180: fields with a comma, quote or line break are quoted, quotes doubled; "\n" endings.
std::string format_csv(const CsvTable& table);
// Throws InputError at file:line when a row is malformed or its width differs from the header.
CsvTable parse_csv(const std::string& text, const std::string& file_name);

// Shortest decimal text that reads back to the same double.
std::string format_number(double value);

}  // namespace ddpsim
