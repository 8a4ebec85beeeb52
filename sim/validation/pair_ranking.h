// Does the model order alternatives as the measurements do? Cases that share a `compare` label
// are one job run two ways (bucket size, parameter server against all-reduce, ...); for every pair
// of them with a result, the pair is ordered correctly when the predicted values differ in the
// same direction as the published ones. A pair whose published values lie within `tie` of each
// other (relative to the smaller) is a tie: its order is within run-to-run noise and not scored.
//
// What a pair compares is the part of its label after the last ": " ("ResNet50, 16 V100: DDP
// bucket 25 vs 1 MB" compares "DDP bucket 25 vs 1 MB"); pairs are also counted per such kind, so
// that bucket-size pairs are never reported as strategy pairs.
#pragma once

#include <string>
#include <vector>

#include "sim/validation/validation_table.h"

namespace ddpsim {

struct RankedPair {
  std::string compare, first, second;  // label and the two case ids
  std::string kind;                    // what the pair compares (the label after its last ": ")
  double measured_ratio = 1;           // first / second, published
  double predicted_ratio = 1;          // first / second, predicted
  bool tie = false;                    // published within the tie band: not scored
  bool correct = false;                // same direction (scored pairs)
};

struct PairCount {
  std::string kind;  // empty: all pairs
  int scored = 0, correct = 0, ties = 0;
  double accuracy_percent() const { return scored ? 100.0 * correct / scored : 0.0; }
};

struct PairRanking {
  std::vector<RankedPair> pairs;  // every pair, in case order
  int scored = 0, correct = 0, ties = 0;
  std::vector<PairCount> kinds;  // per kind, in order of first appearance
  double accuracy_percent() const { return scored ? 100.0 * correct / scored : 0.0; }
};

// The part of a compare label that names what is compared: after its last ": ", else all of it.
std::string pair_kind(const std::string& compare);

PairRanking rank_pairs(const std::vector<CaseRow>& rows, double tie = 0.02);

// "pairs of alternatives ...: 3 of 4 ordered as measured (75 %), 2 ties", one line per kind and
// one per pair.
std::string format_pair_ranking(const PairRanking& ranking);

// One line for the end of the report: "pairs: 3 of 4 ordered as measured (75 %), 2 ties; KIND:
// C of S; ..."
std::string pair_ranking_brief(const PairRanking& ranking);

}  // namespace ddpsim
