// Which of two strategies is faster, in the same sampled worlds (compare --uncertainty). A world
// is one draw of the defaulted inputs (common random numbers: both strategies see the same draw)
// and one quantile of the model's measured error for each; cells of one mechanism class share
// that error (it moves both), cells of different classes draw it independently.
//
// A pair is decided when the leader is faster in at least kDecidedShare of the worlds with that
// share's one-sided 95 % Clopper-Pearson bound over the draws still at or above it (so a few
// lucky draws cannot decide) AND the median gap exceeds the model's resolution for the class
// (discrepancy.h): a 0.1 % gap is never a decision. A pair whose bound straddles the share needs
// more draws (settled() false): compare adds them until every pair is settled or the cap.
// Pure: works on numbers.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/validation/discrepancy.h"

namespace ddpsim {

constexpr double kDecidedShare = 0.9;

struct PairVerdict {
  size_t leader = 0, other = 0;  // indices of the two cells as given (a = 0, b = 1 in judge_pair)
  int draws = 0;
  double share = 0;                // of worlds in which the leader is faster
  double share_low = 0, share_high = 1;  // one-sided 95 % bounds over the draws
  double ratio_p10 = 1, ratio_p50 = 1, ratio_p90 = 1;  // leader / other throughput
  double resolution = 0;           // log gap the model can call
  bool tie = false;                // the same throughput in every world
  bool settled() const { return tie || share_low >= kDecidedShare || share_high < kDecidedShare; }
  bool decided() const {
    return !tie && share_low >= kDecidedShare && ratio_p50 > 1 && log_gap() > resolution;
  }
  double log_gap() const;
};

// `a` and `b`: throughput of each draw (same draws, same order); `shared`: one error for both.
PairVerdict judge_pair(const std::vector<double>& a, const Discrepancy& da,
                       const std::vector<double>& b, const Discrepancy& db, bool shared);

// The cell the pair lines support: the one that leads every pair it is in; else the one that
// leads most pairs (ties: the higher headline). `headlines`: each cell's median; `eligible`:
// cells that may win (a configuration that does not fit in memory cannot). -1 when none.
int supported_winner(const std::vector<PairVerdict>& pairs, const std::vector<double>& headlines,
                     const std::vector<bool>& eligible, bool* leads_every_pair);

// "x1.043 (p10-p90 1.021-1.066)": the leader's throughput over the other's.
std::string format_ratio(const PairVerdict& v);

}  // namespace ddpsim
