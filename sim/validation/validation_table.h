// The outcome of `ddpsim validate` as rows: printed as a text table with the error summaries,
// and written as validation.csv (columns: id, group, status, metric, unit, measured, predicted,
// error_pct, scenario, source, note). Status is `ok` (predicted), `pending` (the scenario needs
// a feature ddpsim lacks; not run) or `failed` (the scenario did not simulate).
#pragma once

#include <string>
#include <vector>

#include "sim/sweep/results_csv.h"
#include "sim/validation/error_stats.h"
#include "sim/validation/validation_case.h"

namespace ddpsim {

struct CaseRow {
  ValidationCase c;
  std::string scenario;      // file, relative to the validated folder
  std::string source;        // validation.source of the scenario
  std::string status;        // ok | pending | failed
  double predicted = 0;      // in c.unit (status ok)
  double error_percent = 0;  // signed (status ok)
  std::string message;       // pending: what is needed; failed: the error
};

// Errors of the rows whose status is ok.
std::vector<CaseError> case_errors(const std::vector<CaseRow>& rows);

CsvTable validation_csv(const std::vector<CaseRow>& rows);

// Per case: id, group, measured, predicted, signed error; then the summaries (median and p90 of
// the absolute error per group and overall), then pending and failed cases with their reasons.
std::string format_validation_report(const std::vector<CaseRow>& rows,
                                     const std::vector<ErrorSummary>& summaries);

}  // namespace ddpsim
