// The scenario the engine runs: the stated one with what it leaves open resolved once, the way
// LevelDB's SanitizeOptions turns the options a caller gave into the ones the database uses.
// The platform, the collectives, the parameter servers, Horovod's cycles, the symmetric slice and
// the resource guard read the resolved values and never derive them again. An uncertainty draw
// changes stated inputs (a NIC's bandwidth or latency, which an unstated server NIC or
// coordination follows), so resolution comes after the draw: simulate() and
// estimate_resources() resolve what they are given. Idempotent. Pure: no SimGrid. It lives with
// the cost models because some defaults are theirs (Horovod's coordination, BytePS's partition).
#pragma once

#include "sim/scenario/scenario.h"

namespace ddpsim {

// Rings run in parallel (NCCL's channels): `requested` where > 0, else one per NIC across nodes
// and one inside a single node; never more than the GPUs of a node (one ring per GPU).
int ring_channel_count(const ClusterSpec& cluster, int requested);

// `stated` with, resolved where left open:
//   sync.channels                 ring_channel_count
//   sync.fusion.coordination      Horovod's default for the cluster's GPUs (fusion only)
//   sync.ps.server_nic_bandwidth  the cluster's NIC (parameter servers only)
//   sync.ps.update_flops_per_param  the optimizer's (parameter servers only)
//   sync.credit                   5 BytePS partitions under priority order (parameter servers
//                                 only; 0 stays unlimited under FIFO)
Scenario effective_scenario(const Scenario& stated);

}  // namespace ddpsim
