// The fraction of a link's line rate a fitted link value plausibly takes, per technology, from
// public measurements (docs/calibration.md, "Plausible fractions of line rate", gives each source).
// A platform fit (ddpsim calibrate --fit-platform) takes the scenario's bandwidth of a link as its
// line rate; a fitted bandwidth whose fraction of it lies outside the technology's range is
// flagged: the log, the scenario's line rate or its topology is probably not what was measured.
// Latencies and TCP NICs (whose socket fraction has no public range yet) are not checked.
#pragma once

#include <optional>
#include <string>

#include "sim/scenario/scenario.h"

namespace ddpsim {

struct LinkFractionRange {
  const char* technology;  // "NVLink/NVSwitch", "PCIe", "RDMA NIC (InfiniBand/RoCE)"
  double low = 0, high = 0;
};

// The range a fitted `parameter` (a link_parameters() key) of `cluster` is checked against;
// nullopt when it is not checked.
std::optional<LinkFractionRange> link_fraction_range(const std::string& parameter,
                                                     const ClusterSpec& cluster);

// "" when `fitted` / `line_rate` lies inside the parameter's range widened by the relative
// `tolerance` (the fit's own error: smaller departures are the model's, not the link's), or the
// parameter is not checked; else the flag, naming the fraction, the line rate and the range.
std::string link_fraction_flag(const std::string& parameter, const ClusterSpec& cluster,
                               double fitted, double line_rate, double tolerance = 0);

}  // namespace ddpsim
