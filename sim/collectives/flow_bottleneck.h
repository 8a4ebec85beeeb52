// What a set of flows that start together takes on otherwise idle links, per byte of the
// collective's buffer: the busiest link's load over its capacity (a flow crossing a link twice,
// like staged traffic through host memory, loads it twice). When every link carries flows of
// one size, max-min sharing reaches exactly this (collective_formulas.h); otherwise it is the
// estimate NCCL's tuner also makes. Used to choose protocols and algorithms, never to time a
// call: calls are timed by their simulated flows.
#pragma once

#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/platform/cluster_platform.h"

namespace ddpsim {

struct FlowShare {
  const simgrid::s4u::Host* from = nullptr;
  const simgrid::s4u::Host* to = nullptr;
  double share = 0;  // bytes of the flow per byte of the buffer
};

// Seconds per byte of buffer; 0 when no flow crosses a link.
double seconds_per_byte(const ClusterPlatform& platform, const std::vector<FlowShare>& flows);

}  // namespace ddpsim
