// Parameter-server synchronisation (sync.strategy: ps), pipelined per partition as BytePS,
// ps-lite and TensorFlow run it.
//
// Partitions: every unit (a DDP bucket, or one tensor with sync.bucket_cap 0) is cut into
// partitions of sync.partition bytes and each partition's key goes to one server
// (sim/cost/ps_partition.h: BytePS's djb2 hash, least-loaded or round-robin).
//
// Worker side, per node: once every GPU of the node has a unit ready, the node's GPUs
// reduce-scatter it over the intra-node fabric (a ring; skipped with one GPU per node), one unit
// after the other in the node's order (fifo: as backward produced them; priority: the lowest layer
// first), so each GPU pushes 1/g of every partition and the node's NICs carry the unit once (as
// BytePS and MXNet's device kvstore do). A GPU queues its partitions (fifo, or by layer) and keeps
// one push in flight per server: a connection sends one message after the other, the message
// latency alpha and then the bytes, so every server link works all the time whatever the others
// do (many keys in flight, ps-lite's asynchronous ZPush). sync.credit > 0 caps the bytes of
// pushes a node has in flight (credit / g per GPU; priority's default is 5 partitions, BytePS's
// scheduled queue: partition x (BYTEPS_NCCL_GROUP_SIZE 4 + 1)).
//
// Server side, per partition: each key belongs to one of the server's engine threads
// (sync.ps.server_threads, BytePS's BYTEPS_SERVER_ENGINE_THREAD, least-loaded by bytes at first
// sight). A landed push is summed on that thread (3 bytes of memory traffic per byte at
// server_memory_bandwidth / threads; the first g pushes of a partition are taken without a copy,
// BytePS's zero-copy first push); once all p are in, the sum is copied to the store (2 bytes per
// byte) and, with update: server, the optimizer runs on it (params x flops_per_param / 20
// GFLOP/s). Then its pulls are due and go out on per-(server, GPU) connections like the pushes
// (in the order they became due; by layer with priority or pull: forward).
//
// A unit is back on a GPU once the slices of all its partitions are pulled and (g > 1) the node's
// GPUs have all-gathered it (in the order units come back on the whole node).
// pull eager: the step is synchronised when every unit is back; with update: worker the worker
// then runs the optimizer. pull forward (TensorFlow): a GPU requests its pulls when it finishes
// backward, and its next forward waits per layer (so does priority scheduling).
//
// mode sync: the pulls of step t wait for that step's sum. mode async with staleness S: a pull of
// (t, partition) goes out once the GPU's own push has landed and the server's copy includes every
// worker's gradients up to step t - S (the SSP read rule); S = 0 is the synchronous schedule
// exactly. Observed staleness of a step = t - the oldest version among its pulls. Async
// throughput sums each worker's own rate over its measured steps.
//
// Why this replaced the bucket-at-a-time engine: there, a GPU pushed one bucket and waited for all
// of it before the next, and a bucket no larger than a chunk lived on one server. Identical
// workers then moved in lockstep and every node pushed the same bucket to the same server at the
// same instant (n-fold incast on one link, the other servers idle); the lockstep sustained itself
// because every incast ended at the same moment for all. A jitter of 1e-3 broke it, the workers
// drifted onto different servers and the step fell by up to 60 %; server counts gave
// non-monotone results the same way (docs/sync-comparison.md).
#pragma once

#include <memory>
#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/engine/gradient_sync.h"
#include "sim/engine/run_context.h"

namespace ddpsim {

// A server CPU's rate for the update arithmetic: streaming weights, gradients and optimizer state
// through memory on a multi-core socket sustains ~20 GFLOP/s of such element-wise work.
constexpr double kServerUpdateFlopsPerSecond = 2e10;

struct PsServerPlace {
  simgrid::s4u::Host* host = nullptr;
  double share = 1;  // relative part of the parameters it holds
};

// placement dedicated: platform.servers (extra hosts, own NICs); colocated: node_cpus[0..K)
// (server k shares node k's NIC 0 with its GPUs); equal shares.
std::vector<PsServerPlace> ps_layout(const Scenario& scenario, const ClusterPlatform& platform);

// BytePS's layout: one colocated server on every node plus `cpu_servers` dedicated ones
// (platform.servers), with byteps_shares() (collective_formulas.h).
std::vector<PsServerPlace> byteps_layout(const ClusterPlatform& platform, int cpu_servers);

// `mixed_colocated` >= 0: the first that many servers are colocated ones of the byteps layout
// (BytePS's mixed-mode hash); -1 otherwise.
std::unique_ptr<GradientSync> make_ps_sync(RunContext* ctx, std::vector<PsServerPlace> servers,
                                           int mixed_colocated = -1);

}  // namespace ddpsim
