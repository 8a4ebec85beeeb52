// Does the model order alternatives as the measurements do? Cases that share a `compare` label
// are one job run different ways (parameter-server layout, bucket size, system); for every pair
// of them with a result, the pair is ordered correctly when the predicted values differ in the
// same direction as the published ones. A pair whose published values lie within `tie` of each
// other (relative to the smaller) is a tie: its order is within run-to-run noise and not scored.
#pragma once

#include <string>
#include <vector>

#include "sim/validation/validation_table.h"

namespace ddpsim {

struct RankedPair {
  std::string compare, first, second;  // label and the two case ids
  double measured_ratio = 1;           // first / second, published
  double predicted_ratio = 1;          // first / second, predicted
  bool tie = false;                    // published within the tie band: not scored
  bool correct = false;                // same direction (scored pairs)
};

struct PairRanking {
  std::vector<RankedPair> pairs;  // every pair, in case order
  int scored = 0, correct = 0, ties = 0;
  double accuracy_percent() const { return scored ? 100.0 * correct / scored : 0.0; }
};

PairRanking rank_pairs(const std::vector<CaseRow>& rows, double tie = 0.02);

// "strategy pairs: 3 of 4 ordered as measured (75 %), 2 ties" and one line per pair.
std::string format_pair_ranking(const PairRanking& ranking);

}  // namespace ddpsim
