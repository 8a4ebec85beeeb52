// Whether a measured all-reduce table (`sync.alpha_beta`) may stand in for the links of a
// scenario. A table is a measurement of one machine: its times already contain that machine's
// GPU count, topology and GPUs, and nothing in alpha + beta * S tells how they change at another
// scale. So:
// - every bucket the scenario reduces must lie within the sizes the table measured (a fit is not
//   extrapolated silently): otherwise InputError at the scenario's `sync.alpha_beta` value;
// - another GPU count, node count or GPU type than the table's, or a table that does not say
//   where it was measured, is a warning the summary and results.json carry.
// To predict another scale from a measurement, calibrate the links instead
// (`ddpsim calibrate --fit-platform`, docs/calibration.md).
#pragma once

#include <string>
#include <vector>

#include "sim/measurements/calibration_profile.h"
#include "sim/text/input_error.h"

namespace ddpsim {

// `sweep` is the table the scenario uses (its algorithm's, else auto's); `table_path` names it in
// messages and `where` is the scenario's sync.alpha_beta. Returns the warnings, in a fixed order.
std::vector<std::string> check_alpha_beta_use(const CollectiveSweep& sweep,
                                              const ClusterSpec& cluster,
                                              const std::vector<double>& bucket_bytes,
                                              const std::string& table_path,
                                              const SourceLocation& where);

// The sizes a table covers: its measured samples' smallest and largest, or, for a table written
// without samples, the span of its ranges.
struct SizeSpan {
  double min_bytes = 0, max_bytes = 0;
};
SizeSpan measured_span(const CollectiveSweep& sweep);

}  // namespace ddpsim
