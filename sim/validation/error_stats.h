// Error statistics of a validation run: signed error per case, and the median and 90th
// percentile of the absolute errors per group and overall.
//
// Percentiles interpolate linearly between order statistics (numpy's default): for n sorted
// values v, the q-quantile is v[h] + (h - floor h)(v[ceil h] - v[floor h]) with h = q (n - 1).
#pragma once

#include <string>
#include <vector>

#include "sim/validation/validation_case.h"

namespace ddpsim {

// 100 (predicted - measured) / measured; positive = the model predicts more than was measured.
double signed_error_percent(double predicted, double measured);

// q in [0, 1]; 0 for an empty list.
double percentile(std::vector<double> values, double q);
double median(std::vector<double> values);

struct ErrorSummary {
  std::string label;  // a group name, or "overall"
  int cases = 0;
  double median_abs = 0;   // percent
  double p90_abs = 0;      // percent
  double max_abs = 0;      // percent
  std::string worst_case;  // id of the case with max_abs
};

struct CaseError {
  std::string id;
  ValidationGroup group = ValidationGroup::kScaling;
  double error_percent = 0;  // signed
};

// One summary per group that has cases (in all_groups() order), then "overall".
std::vector<ErrorSummary> summarise_errors(const std::vector<CaseError>& errors);

}  // namespace ddpsim
