// What the link meter measured, as results report it: per link class, the busiest links, the
// links outside the nodes, a per-node heat map; the phrase that names the binding links; and,
// for the traced step, utilisation counters and the link that bound each communication slice.
#pragma once

#include <string>
#include <vector>

#include "sim/collectives/link_meter.h"
#include "sim/results/result.h"

namespace ddpsim {

// Per step over `steps` measured steps, utilisation against the meter's window.
LinkUsage link_usage(const LinkMeter& meter, int steps, size_t busiest = 10);

// "leaf uplinks 94 % busy": the group of the most utilised link and its utilisation; "" when
// no link carried bytes. Below kLatencyBoundBelow the phrase says the calls' latency binds.
constexpr double kLatencyBoundBelow = 0.25;
std::string binding_links(const LinkUsage& usage);

// Utilisation of `links` (readable names) between `from` and `to`, each flow at its mean rate
// over its life inside the window; one point per change.
std::vector<LinkCounter> link_counters(const LinkMeter& meter,
                                       const std::vector<std::string>& links, double from,
                                       double to);

// Of the `candidates` (catalogue indices), the one most utilised between `from` and `to` (each
// flow at its mean rate), and its utilisation; {-1, 0} when none carried bytes then.
std::pair<int, double> busiest_during(const LinkMeter& meter, const std::vector<int>& candidates,
                                      double from, double to);

}  // namespace ddpsim
