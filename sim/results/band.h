// A p10-p50-p90 band of one figure over the uncertainty draws (sim/uncertainty/uncertainty.h
// computes them), and the three bands a sweep point records: they travel in a point file's
// `result.uncertainty` (the same shape as simulate's results.json) and become results.csv
// columns (docs/results-csv.md). Plain values, so the sweep store reads them without the
// simulator.
#pragma once

#include <nlohmann/json.hpp>

namespace ddpsim {

struct Band {
  double p10 = 0, p50 = 0, p90 = 0;
};

struct ResultBands {
  int samples = 0;  // draws of the defaulted inputs
  Band samples_per_second, iteration_time, exposed_comm_share;
};

// Reads `result.uncertainty` (uncertainty_to_json's shape); throws nlohmann's errors when a
// member is missing.
ResultBands bands_from_json(const nlohmann::json& uncertainty);

}  // namespace ddpsim
