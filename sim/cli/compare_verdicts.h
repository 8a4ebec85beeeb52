// The verdicts of `compare --uncertainty` for one row of the table (one model and NIC): every pair
// of cells that can run judged in the same sampled worlds (sim/uncertainty/pair_verdict.h), the
// star on the cell the pairs support, and the lines that print them. Without draws, the star is
// the fastest nominal cell that fits.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "sim/cli/compare_cells.h"
#include "sim/ledger/assumptions.h"
#include "sim/uncertainty/pair_verdict.h"

namespace ddpsim::cli {

struct RowVerdicts {
  std::vector<std::pair<size_t, size_t>> cells;  // (a, b) of each pair, in print order
  std::vector<PairVerdict> pairs;                // leader and other as cell indices
  int star = -1;  // banded: the cell the pairs support
  bool leads_every_pair = false;
  double best = 0;  // unbanded: the fastest nominal cell that fits (ties all starred)
};

// Both cells can run (a sharded configuration that does not fit cannot).
inline bool compared(const Cell& a, const Cell& b) { return a.fits && b.fits; }

// Cells of one mechanism class share the model's error (it moves both); others draw it apart.
PairVerdict judge_cells(const Cell& a, const Cell& b);

RowVerdicts judge_row(const std::vector<Cell>& cells, bool uncertain);

// One line per pair: who is faster, in what share of worlds, by how much, and the verdict; an
// undecided pair names the input whose draws (`design`, every draw's row) correlate most with the
// difference among `defaulted` and the measurement that would settle it.
std::string format_row_verdicts(const RowVerdicts& v, const std::vector<Cell>& cells,
                                const std::vector<std::string>& strategies,
                                const std::vector<const AssumptionRow*>& defaulted,
                                const std::vector<std::vector<double>>& design);

}  // namespace ddpsim::cli
