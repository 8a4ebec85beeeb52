// `ddpsim merge`: joins the output folders of one sweep run in pieces (Slurm array shards, or
// several machines) into one folder: results.csv with every point once, sorted by point index,
// sweep.json, and the point files. Rows are taken verbatim from the inputs' results.csv.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace ddpsim {

struct MergeReport {
  size_t rows = 0;              // rows written
  size_t points = 0;            // points in the sweep (0 when no input has a sweep.json)
  std::vector<size_t> missing;  // point indexes no input has
  size_t duplicates = 0;        // identical rows found in more than one input
  size_t failed = 0;            // rows with status failed
};

// Each input is a sweep output folder or a results.csv file. Inputs must be the same sweep: the
// same CSV header and, where sweep.json exists, the same axes and point ids. A point present in
// two inputs must have identical rows (a failed row gives way to an ok one). Throws InputError
// naming the input that does not fit.
MergeReport merge_sweeps(const std::vector<std::string>& inputs, const std::string& out_dir);

}  // namespace ddpsim
