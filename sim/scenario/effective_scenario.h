// The scenario the engine runs: the stated one with what it leaves open resolved once, the way
// LevelDB's SanitizeOptions turns the options a caller gave into the ones the database uses.
// The platform, the collectives, the symmetric slice and the resource guard read the resolved
// values and never derive them again. An uncertainty draw changes stated inputs (a NIC's
// bandwidth, which an unstated server NIC follows), so resolution comes after the draw:
// simulate() and estimate_resources() resolve what they are given. Idempotent. Pure: no SimGrid.
#pragma once

#include "sim/scenario/scenario.h"

namespace ddpsim {

// Rings run in parallel (NCCL's channels): `requested` where > 0, else one per NIC across nodes
// and one inside a single node; never more than the GPUs of a node (one ring per GPU).
int ring_channel_count(const ClusterSpec& cluster, int requested);

// `stated` with sync.channels resolved (ring_channel_count) and, for parameter servers, the
// servers' NIC bandwidth (the cluster's NIC where not stated).
Scenario effective_scenario(const Scenario& stated);

}  // namespace ddpsim
