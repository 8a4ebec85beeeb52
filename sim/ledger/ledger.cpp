#include "sim/ledger/ledger.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "sim/measurements/calibration_profile.h"
#include "sim/measurements/platform_file.h"

namespace ddpsim {
namespace {

bool is_stated(const Scenario& s, const AssumptionRow& row) {
  if (s.assumed.count(row.key)) return false;
  for (const char* key : row.stated_by) {
    const std::string prefix(key);
    for (const std::string& path : s.stated)
      if (path == prefix ||
          (path.size() > prefix.size() && path.compare(0, prefix.size(), prefix) == 0 &&
           path[prefix.size()] == '.'))
        return true;
  }
  return false;
}

// The parameter of a platform fit that settles a row: the row's own key, except where the fit
// measures the row through another parameter. NCCL's latency table: the fit holds it fixed and
// measures it through the link latency it solves above it (platform_fit.h): the intra-node
// latency on one node, the network's on several. The TCP share of the NIC: over
// `transport: tcp` the fit holds the efficiency and fits nic.bandwidth, so the product the
// efficiency scales (what the sockets delivered) is measured (docs/transports.md).
std::string fitted_parameter(const Scenario& s, const AssumptionRow& row) {
  const std::string key = row.key;
  if (key == "sync.nccl_latency")
    return s.cluster.nodes > 1 ? "cluster.nic.latency" : "cluster.intra_node.latency";
  if (key == "cluster.nic.efficiency") return "cluster.nic.bandwidth";
  return key;
}

// A platform file fitted this key: its file and the device of the fit, read from the typed
// fit the loader applied (never from the notes it printed).
bool from_platform_fit(const Scenario& s, const AssumptionRow& row, LedgerEntry* e) {
  const ClusterSpec& c = s.cluster;
  if (c.calibration.empty()) return false;
  if (!c.fitted_platform)
    throw std::logic_error("cluster.calibration without the platform file the loader reads");
  const std::string parameter = fitted_parameter(s, row);
  const FittedParameter* fitted = nullptr;
  for (const FittedParameter& p : c.fitted_platform->parameters)
    if (p.parameter == parameter) fitted = &p;
  if (fitted == nullptr) return false;
  e->file = c.calibration;
  e->device = fitted->device;
  e->why = "fitted by `ddpsim calibrate --fit-platform`";
  if (parameter != row.key) e->why += " (through " + parameter + ")";
  return true;
}

// The all-reduce's cost comes from a measured alpha-beta table instead of these links.
bool from_alpha_beta(const Scenario& s, const AssumptionRow& row, LedgerEntry* e) {
  const std::string key = row.key;
  if (key != "cluster.intra_node.bandwidth" && key != "cluster.nic.bandwidth") return false;
  if (s.sync.alpha_beta.empty() && s.sync.alpha_beta_table.empty()) return false;
  if (s.sync.strategy != SyncStrategy::kAllReduce || s.sync.sharding.strategy != Sharding::kNone)
    return false;
  e->file = s.sync.alpha_beta_table.empty() ? "sync.alpha_beta" : s.sync.alpha_beta_table;
  e->why = "the all-reduce's cost is a measured alpha-beta table";
  return true;
}

bool from_profile(const Scenario& s, const AssumptionRow& row, LedgerEntry* e) {
  if (s.compute.mode != ComputeMode::kProfile || !s.compute.measured_profile) return false;
  if (std::string(row.key) != "compute.overlap_slowdown") return false;
  if (s.compute.overlap_slowdown > 0) return false;  // a stated factor replaces the profile's
  const CalibrationProfile& profile = *s.compute.measured_profile;
  if (!profile.overlap || !s.compute.profile_mismatch.empty()) return false;
  e->file = s.compute.profile;
  e->device = profile.device.name;
  e->date = profile.device.date;
  e->why = "measured beside a collective by the `ddpsim calibrate --model` harness";
  e->value = profile.overlap->slowdown();
  return true;
}

// Row j of the table is column j of the draws' design.
size_t column_of(const AssumptionRow* row) {
  return static_cast<size_t>(row - assumption_rows().data());
}

}  // namespace

const char* input_source_name(InputSource source) {
  switch (source) {
    case InputSource::kMeasured:
      return "measured";
    case InputSource::kScenario:
      return "scenario";
    case InputSource::kDefault:
      return "default";
  }
  return "default";
}

std::vector<LedgerEntry> build_ledger(const Scenario& s) {
  std::vector<LedgerEntry> ledger;
  for (const AssumptionRow& row : assumption_rows()) {
    if (!row.applies(s)) continue;
    LedgerEntry e;
    e.row = &row;
    e.value = row.get(s);
    if (from_platform_fit(s, row, &e) || from_alpha_beta(s, row, &e) || from_profile(s, row, &e)) {
      e.source = InputSource::kMeasured;
    } else if (is_stated(s, row)) {
      e.source = InputSource::kScenario;
      e.why = "stated in the scenario";
    } else {
      e.source = InputSource::kDefault;
      e.why = row.why;
      const double high = row.range_high(s);
      switch (row.range) {
        case RangeKind::kAbsolute:
        case RangeKind::kChoice:
          e.low = row.low;
          e.high = high;
          break;
        case RangeKind::kRelative:
          e.low = e.value * row.low;
          e.high = e.value * high;
          break;
      }
      e.low = std::clamp(e.low, row.floor, row.ceiling);
      e.high = std::clamp(e.high, row.floor, row.ceiling);
      // The value in use lies inside its range, even where a user marked an unusual value.
      e.low = std::min(e.low, e.value);
      e.high = std::max(e.high, e.value);
    }
    if (e.source != InputSource::kDefault) e.low = e.high = e.value;
    ledger.push_back(e);
  }
  return ledger;
}

int defaulted_inputs(const std::vector<LedgerEntry>& ledger) {
  return static_cast<int>(std::count_if(ledger.begin(), ledger.end(), [](const LedgerEntry& e) {
    return e.source == InputSource::kDefault;
  }));
}

nlohmann::json ledger_to_json(const std::vector<LedgerEntry>& ledger) {
  nlohmann::json out = nlohmann::json::array();
  for (const LedgerEntry& e : ledger) {
    nlohmann::json j;
    j["key"] = e.row->key;
    j["label"] = e.row->label;
    j["value"] = e.value;
    j["source"] = input_source_name(e.source);
    j["low"] = e.low;
    j["high"] = e.high;
    j["why"] = e.why;
    j["measure"] = e.row->measure;
    // A choice encoded as a number (assumptions.h) also says what each number stands for.
    if (e.row->encoded_choice())
      j["names"] = {{"value", e.row->format(e.value)},
                    {"low", e.row->format(e.low)},
                    {"high", e.row->format(e.high)}};
    if (e.source == InputSource::kMeasured) {
      j["file"] = e.file;
      j["device"] = e.device.empty() ? "not recorded" : e.device;
      j["date"] = e.date.empty() ? "not recorded" : e.date;
    }
    out.push_back(j);
  }
  return out;
}

std::string describe_entry(const LedgerEntry& e, bool with_range) {
  std::string text = std::string(e.row->label) + " " + e.row->format(e.value);
  if (with_range && e.source == InputSource::kDefault)
    text += " (" + e.row->format(e.low) + " to " + e.row->format(e.high) + ")";
  return text;
}

double drawn_fraction(const AssumptionRow& row, double u) {
  if (row.mode < 0) return u;
  // Inverse CDF of the triangular distribution on [0, 1] with its peak at m: a Latin hypercube
  // stratum in u stays a stratum in the fraction, so the design keeps its spread.
  const double m = row.mode;
  return u < m ? std::sqrt(u * m) : 1 - std::sqrt((1 - u) * (1 - m));
}

Scenario drawn_scenario(const Scenario& base, const std::vector<LedgerEntry>& ledger,
                        const std::vector<double>& u) {
  Scenario s = base;
  for (const LedgerEntry& e : ledger) {
    if (e.source != InputSource::kDefault) continue;
    const double x = u.at(column_of(e.row));
    const double value = e.row->range == RangeKind::kChoice
                             ? (x < 0.5 ? e.low : e.high)
                             : e.low + drawn_fraction(*e.row, x) * (e.high - e.low);
    e.row->set(&s, value);
  }
  return s;
}

}  // namespace ddpsim
