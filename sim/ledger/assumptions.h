// The uncertain inputs of a prediction, one row each (docs/assumptions.md): where the value
// lives in the typed Scenario, when it shapes the prediction, its plausible range with the
// public source of that range, and the measurement that would replace it. The assumption ledger
// (sim/ledger/ledger.h) reads every row against a loaded scenario; the uncertainty draws
// write sampled values back through the same row. Adding an uncertain input is one more row at
// the end of assumptions.cpp (row j is column j of the draws' design: appending keeps the
// earlier columns, and the bands of scenarios the new row does not apply to, as they were).
#pragma once

#include <limits>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ddpsim {

enum class RangeKind {
  kAbsolute,  // low and high are values of the input
  kRelative,  // low and high multiply the value in use (a bandwidth written from a fraction)
  kChoice,    // two discrete alternatives, low or high exactly (drawn half and half)
};

// How a row's value prints (AssumptionRow::format): the unit, or the choice a number encodes.
enum class InputUnit {
  kBandwidth,         // bytes/s, printed in GB/s
  kFraction,          // 0-1, printed as a percentage
  kFactor,            // a multiplier, printed "1.2x"
  kGpusPerSwitch,     // a count of GPUs
  kSamplesPerSecond,  // a rate
  kAttention,         // a choice: attention_code
  kGradientBytes,     // a choice: 2 (fp16/bf16) or 4 (fp32)
};

// One uncertain input. Rows are written with designated initialisers (assumptions.cpp), so every
// field is named where it is set; a row reads (get), sets (set), prints (format) and judges
// (applies, range_high) its own value.
struct AssumptionRow {
  const char* key = "";    // scenario key ("cluster.nic.bandwidth"); `assumed:` names it
  const char* label = "";  // short, for summaries ("NIC effective bandwidth")
  InputUnit unit = InputUnit::kFraction;
  RangeKind range = RangeKind::kAbsolute;
  double low = 0, high = 0;                                             // see RangeKind
  double floor = 0, ceiling = std::numeric_limits<double>::infinity();  // the range is clipped
  double (*get)(const Scenario&) = nullptr;
  void (*set)(Scenario*, double) = nullptr;
  bool (*applies)(const Scenario&) = nullptr;  // the input shapes this scenario's prediction
  // Keys whose statement fixes the input (any of them written or --set: `scenario`).
  std::vector<const char*> stated_by;
  const char* why = "";      // the default's reading and the range's public source, one sentence
  const char* measure = "";  // the measurement that replaces the assumption
  // The high end where it depends on the scenario (the PCIe switch's GPUs per socket; the
  // slowest of the job's N GPUs), in place of `high`; null: `high` for every scenario.
  double (*high_for)(const Scenario&) = nullptr;
  // How draws spread over [low, high] (kAbsolute, kRelative): < 0 uniformly; otherwise a
  // triangular distribution peaking at this fraction of the way from low to high, chosen so
  // that the draws' mean is the mean the row's source publishes beside its maximum (mean =
  // low + (high - low) * (1 + mode) / 3).
  double mode = -1;

  // The value as the summary prints it ("300 GB/s", "1.2x", "45 %", "sdpa").
  std::string format(double value) const;
  // The value is a number standing for a choice (results.json also names what it stands for).
  bool encoded_choice() const {
    return unit == InputUnit::kAttention || unit == InputUnit::kGradientBytes;
  }
  // The high end for this scenario (high_for, else high), before RangeKind applies it. Every
  // consumer of a range (the ledger, and through it the draws, the tornado, compare's common
  // design, the summary and results.json) reads it here.
  double range_high(const Scenario& s) const { return high_for != nullptr ? high_for(s) : high; }
};

// Every row, in the order the ledger and the summary list them.
const std::vector<AssumptionRow>& assumption_rows();
const AssumptionRow* find_assumption_row(const std::string& key);
std::string assumption_keys();  // "cluster.intra_node.bandwidth, ..." for messages

// model.attention's row as a number: eager 0, sdpa 1, flash 2; a code rounds to the nearest.
double attention_code(Attention attention);
Attention attention_from_code(double code);

// The per-GPU spread of compute speed that compute.slowest_gpu's range is made of (a standard
// deviation over the median GPU), converted from Sinha et al.'s most variable cluster
// (docs/assumptions.md): the high end for N GPUs is 1 + z(N) * this.
extern const double kGpuSpeedSigmaHigh;

}  // namespace ddpsim
