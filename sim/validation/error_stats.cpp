#include "sim/validation/error_stats.h"

#include <algorithm>
#include <cmath>

namespace ddpsim {
namespace {

ErrorSummary summarise(const std::string& label, const std::vector<const CaseError*>& errors) {
  ErrorSummary s;
  s.label = label;
  s.cases = static_cast<int>(errors.size());
  std::vector<double> abs_errors;
  for (const CaseError* e : errors) {
    const double a = std::fabs(e->error_percent);
    abs_errors.push_back(a);
    if (a >= s.max_abs) {
      s.max_abs = a;
      s.worst_case = e->id;
    }
  }
  s.median_abs = median(abs_errors);
  s.p90_abs = percentile(abs_errors, 0.9);
  return s;
}

}  // namespace

double signed_error_percent(double predicted, double measured) {
  return 100.0 * (predicted - measured) / measured;
}

double percentile(std::vector<double> values, double q) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  const double h = q * static_cast<double>(values.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(h));
  const size_t hi = static_cast<size_t>(std::ceil(h));
  return values[lo] + (h - static_cast<double>(lo)) * (values[hi] - values[lo]);
}

double median(std::vector<double> values) { return percentile(std::move(values), 0.5); }

std::vector<ErrorSummary> summarise_errors(const std::vector<CaseError>& errors) {
  std::vector<ErrorSummary> out;
  for (ValidationGroup g : all_groups()) {
    std::vector<const CaseError*> in_group;
    for (const CaseError& e : errors)
      if (e.group == g) in_group.push_back(&e);
    if (!in_group.empty()) out.push_back(summarise(group_name(g), in_group));
  }
  std::vector<const CaseError*> all;
  for (const CaseError& e : errors) all.push_back(&e);
  out.push_back(summarise("overall", all));
  return out;
}

}  // namespace ddpsim
