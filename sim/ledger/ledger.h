// The assumption ledger: for every uncertain input that shapes a scenario's prediction
// (sim/ledger/assumptions.h), its value and where it came from. `measured`: a platform fit,
// alpha-beta table or calibration profile (file, device, date); `scenario`: the user stated it;
// `default`: a documented value with a plausible range (docs/assumptions.md). Only defaults are
// sampled by the uncertainty draws, so the draws of a fully stated or measured scenario coincide
// (its band is then the model's own error alone, sim/validation/discrepancy.h). A draw's
// scenario is made here too (drawn_scenario): each default set through its own row.
// Built after the scenario is loaded, from its typed values only: the loader has read the
// profile and platform file the scenario names (the device and date they were measured on).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/ledger/assumptions.h"

namespace ddpsim {

enum class InputSource { kMeasured, kScenario, kDefault };
const char* input_source_name(InputSource source);

struct LedgerEntry {
  const AssumptionRow* row = nullptr;
  double value = 0;  // in use
  InputSource source = InputSource::kDefault;
  double low = 0, high = 0;  // the range sampled (defaults); low = high = value otherwise
  std::string why;           // default: the range's source; scenario/measured: where it came from
  std::string file, device, date;  // measured: what measured it ("" when not recorded)
};

// One entry per row that applies to `scenario`, in table order.
std::vector<LedgerEntry> build_ledger(const Scenario& scenario);

// The number of default (sampled) entries.
int defaulted_inputs(const std::vector<LedgerEntry>& ledger);

// `result.assumptions` of results.json: [{key, label, value, unit, source, low, high, why,
// measure, file?, device?, date?}]; values in SI units (bytes/s for bandwidths).
nlohmann::json ledger_to_json(const std::vector<LedgerEntry>& ledger);

// "intra-node (NVLink) bandwidth 300 GB/s (265-327)": one input as the summary prints it.
std::string describe_entry(const LedgerEntry& entry, bool with_range = true);

// Where a draw `u` in [0, 1) of `row` lies within its [low, high], as a fraction: u itself for a
// uniform row, the inverse of the triangular distribution's CDF for a row with a mode.
double drawn_fraction(const AssumptionRow& row, double u);

// The scenario of one draw: `u[j]` in [0, 1) is the draw of assumption row j (all rows, in
// table order, so that every scenario drawn with the same design sees the same world).
Scenario drawn_scenario(const Scenario& base, const std::vector<LedgerEntry>& ledger,
                        const std::vector<double>& u);

}  // namespace ddpsim
