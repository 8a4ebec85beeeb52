// Why a scaling efficiency is above 100 %: the parts of one GPU's step that are shorter in the
// multi-GPU run than in the 1-GPU baseline (same per-GPU batch), measured from the two results'
// breakdowns, each with the cause the model can state for it (sharding divides the optimizer
// update; the lone GPU waited longer for data; compute per GPU differs). "" when the efficiency
// is at most 100 % (a relative 1e-9 of rounding allowed).
#pragma once

#include <string>

#include "sim/results/result.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

std::string superlinear_note(const Scenario& scenario, const SimulationResult& many,
                             const SimulationResult& one);

// What a table's scaling efficiency compares against where it could mislead, as a mark on the
// cell and a footnote under the table (sweep, compare), in the same words everywhere:
// above 100 %: the baseline GPU runs the whole optimizer update, which sharding divides;
inline constexpr const char* kAboveLinearMark = "^";
std::string above_linear_footnote();
// a baseline that itself waits for data: the figure compares two loader-starved runs.
inline constexpr const char* kStarvedBaselineMark = "~";
std::string starved_baseline_footnote();
// The summary's line for the second case ("" unless the baseline is data-loading-bound).
std::string starved_baseline_line(const SimulationResult& result);

}  // namespace ddpsim
