// Parameter-server synchronisation (sync.strategy: ps).
//
// Sharding: every gradient tensor is cut into chunks of sync.ps.chunk_bytes (the last one
// shorter), as BytePS partitions tensors, and each chunk goes to the server with the least bytes
// relative to its share (equal shares unless the layout says otherwise), so servers hold equal
// loads to within one chunk. A bucket's bytes on server s are the sum of its chunks there.
//
// Per bucket, as soon as backward has filled it (DDP's buckets): the GPUs of a node first
// reduce-scatter the bucket over the intra-node fabric (a ring; skipped with one GPU per node), so
// each GPU pushes 1/g of the bucket's bytes of each server (a node's NICs carry the bucket once,
// as BytePS and MXNet's device kvstore do); each push is one flow per (GPU, server) after the
// message latency. A server aggregates a (bucket, step) once all p pushes have arrived, then
// applies the update on its CPU, one at a time per server: params * flops_per_param /
// kServerUpdateFlopsPerSecond seconds (flops_per_param = sync.ps.update_flops_per_param, or the
// optimizer's: sgd 2, momentum 4, adam 12). It then sends every GPU its slice (the pull, one flow
// per (server, GPU)); after the message latency the node's GPUs all-gather the bucket. The step
// is synchronised when every bucket is back; workers run no optimizer (the server did).
//
// mode sync: a pull of (step t, bucket b) waits for that aggregation. mode async with staleness
// S: the pull is sent once the worker's own push has arrived and the server's copy of the bucket
// includes every worker's gradients up to step t - S (the SSP read rule: a worker runs at most S
// steps ahead of the slowest worker's pushes). S = 0 is the synchronous schedule exactly. The
// server still applies one update per step and bucket, after all pushes of that step. Observed
// staleness of a step = t - the oldest version among its pulls. Async throughput sums each
// worker's own rate over its measured steps (no worker waits for a global step).
#pragma once

#include <memory>
#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/cost/bucketing.h"
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

// bytes[b][s]: bytes of bucket b held by server s (pure; exposed for tests).
std::vector<std::vector<double>> partition_buckets(const std::vector<Bucket>& buckets,
                                                   double chunk_bytes,
                                                   const std::vector<double>& shares);

double update_flops_per_param(const ParameterServerSpec& ps, Optimizer optimizer);

std::unique_ptr<GradientSync> make_ps_sync(RunContext* ctx, std::vector<PsServerPlace> servers);

}  // namespace ddpsim
