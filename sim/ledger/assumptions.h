// The uncertain inputs of a prediction, one row each (docs/assumptions.md): where the value
// lives in the typed Scenario, when it shapes the prediction, its plausible range with the
// public source of that range, and the measurement that would replace it. The assumption ledger
// (sim/uncertainty/ledger.h) reads every row against a loaded scenario; the uncertainty draws
// write sampled values back through the same row. Adding an uncertain input is one more row at
// the end of assumptions.cpp (row j is column j of the draws' design: appending keeps the
// earlier columns, and the bands of scenarios the new row does not apply to, as they were).
#pragma once

#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ddpsim {

enum class RangeKind {
  kAbsolute,  // low and high are values of the input
  kRelative,  // low and high multiply the value in use (a bandwidth written from a fraction)
  kChoice,    // two discrete alternatives, low or high exactly (drawn half and half)
};

struct AssumptionRow {
  const char* key;    // scenario key ("cluster.nic.bandwidth"); `assumed:` names it
  const char* label;  // short, for summaries ("NIC effective bandwidth")
  const char* unit;   // how the value prints: "GB/s", "x", "" (a fraction), "GPUs/switch"
  RangeKind range;
  double low, high;       // see RangeKind
  double floor, ceiling;  // the range is clipped to [floor, ceiling] (a fraction <= 1, ...)
  double (*get)(const Scenario&);
  void (*set)(Scenario*, double);
  bool (*applies)(const Scenario&);  // the input shapes this scenario's prediction
  // Keys whose statement fixes the input (any of them written or --set: `scenario`).
  std::vector<const char*> stated_by;
  const char* why;      // the default's reading and the range's public source, one sentence
  const char* measure;  // the measurement that replaces the assumption
  // The high end where it depends on the scenario (the PCIe switch's GPUs per socket; the
  // slowest of the job's N GPUs), in place of `high`; null: `high` for every scenario.
  double (*high_for)(const Scenario&) = nullptr;
  // How draws spread over [low, high] (kAbsolute, kRelative): < 0 uniformly; otherwise a
  // triangular distribution peaking at this fraction of the way from low to high, chosen so
  // that the draws' mean is the mean the row's source publishes beside its maximum (mean =
  // low + (high - low) * (1 + mode) / 3).
  double mode = -1;
};

// Every row, in the order the ledger and the summary list them.
const std::vector<AssumptionRow>& assumption_rows();
const AssumptionRow* find_assumption_row(const std::string& key);
std::string assumption_keys();  // "cluster.intra_node.bandwidth, ..." for messages

// model.attention's row as a number: eager 0, sdpa 1, flash 2; a code rounds to the nearest.
double attention_code(Attention attention);
Attention attention_from_code(double code);

// The row's high end for this scenario (high_for, else high), before RangeKind applies it. Every
// consumer of a range (the ledger, and through it the draws, the tornado, compare's common
// design, the summary and results.json) reads it here.
double range_high(const AssumptionRow& row, const Scenario& s);

// The per-GPU spread of compute speed that compute.slowest_gpu's range is made of (a standard
// deviation over the median GPU), converted from Sinha et al.'s most variable cluster
// (docs/assumptions.md): the high end for N GPUs is 1 + z(N) * this.
extern const double kGpuSpeedSigmaHigh;

}  // namespace ddpsim
