#include "sim/validation/validation_table.h"

#include <fmt/format.h>

namespace ddpsim {
namespace {

std::string with_unit(double value, const std::string& unit) {
  return fmt::format("{:.4g} {}", value, unit);
}

}  // namespace

std::vector<CaseError> case_errors(const std::vector<CaseRow>& rows) {
  std::vector<CaseError> errors;
  for (const CaseRow& r : rows)
    if (r.status == "ok") errors.push_back({r.c.id, r.c.group, r.error_percent});
  return errors;
}

CsvTable validation_csv(const std::vector<CaseRow>& rows) {
  CsvTable t;
  t.header = {"id",        "group",     "status",   "metric", "unit", "measured",
              "predicted", "error_pct", "scenario", "source", "note"};
  for (const CaseRow& r : rows) {
    const bool ok = r.status == "ok";
    t.rows.push_back({r.c.id, group_name(r.c.group), r.status, metric_name(r.c.metric), r.c.unit,
                      format_number(r.c.measured), ok ? format_number(r.predicted) : "",
                      ok ? format_number(r.error_percent) : "", r.scenario, r.source,
                      r.message.empty() ? r.c.note : r.message});
  }
  return t;
}

std::string format_validation_report(const std::vector<CaseRow>& rows,
                                     const std::vector<ErrorSummary>& summaries) {
  std::string out = fmt::format("{:<40} {:<13} {:>16} {:>16} {:>8}\n", "case", "group", "measured",
                                "predicted", "error");
  for (const CaseRow& r : rows) {
    if (r.status != "ok") continue;
    out += fmt::format("{:<40} {:<13} {:>16} {:>16} {:>+7.1f}%\n", r.c.id, group_name(r.c.group),
                       with_unit(r.c.measured, r.c.unit), with_unit(r.predicted, r.c.unit),
                       r.error_percent);
  }
  out += fmt::format("\n{:<13} {:>6} {:>12} {:>10} {:>10}  {}\n", "group", "cases", "median |err|",
                     "p90 |err|", "max |err|", "worst case");
  for (const ErrorSummary& s : summaries) {
    out += fmt::format("{:<13} {:>6} {:>11.1f}% {:>9.1f}% {:>9.1f}%  {}\n", s.label, s.cases,
                       s.median_abs, s.p90_abs, s.max_abs, s.worst_case);
  }
  for (const char* status : {"pending", "failed"}) {
    bool header = false;
    for (const CaseRow& r : rows) {
      if (r.status != status) continue;
      if (!header) out += fmt::format("\n{} (not in the statistics):\n", status);
      header = true;
      out += fmt::format("  {:<40} {}\n", r.c.id, r.message);
    }
  }
  return out;
}

}  // namespace ddpsim
