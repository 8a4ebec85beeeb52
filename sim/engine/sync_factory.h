// Chooses, from the scenario, the synchronisation strategy, the all-reduce algorithm and the
// extra hosts the platform needs: the one place that maps sync knobs to engine components.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/cost/bucketing.h"
#include "sim/engine/run_context.h"
#include "sim/platform/cluster_platform.h"

namespace ddpsim {

PlatformExtras platform_extras(const Scenario& scenario);
std::unique_ptr<AllReduce> make_allreduce(const Scenario& scenario, Transport* transport);
// Any modelled collective (all-reduce, reduce-scatter, all-gather; run()'s bytes is the full
// buffer, allreduce.h) over `group`, with the scenario's algorithm, mode, channels and latency
// model. (kAllReduce, kWorld) is make_allreduce. Reduce-scatter and all-gather: as the
// algorithm's row says (collective_algorithms.h: ring, tree and auto run the ring, NCCL having
// no tree for them; halving-doubling and hierarchical their halves). kNode and kRail groups run a ring per group whatever the algorithm
// (make_group_collective). With a measured table (sync.alpha_beta_table, as the loader read it
// into sync.alpha_beta_file: nothing here opens a file) a world collective takes that op's rows
// (`op: reduce_scatter` entries), never the all_reduce rows: a table without them, or any node or
// rail group, is an InputError. Broadcast: std::invalid_argument.
std::unique_ptr<AllReduce> make_collective(const Scenario& s, Transport* transport, CollectiveOp op,
                                           CollectiveGroup group = CollectiveGroup::kWorld);
// Whether `id` has the constructors its row of collective_algorithms() promises (an all-reduce
// where it prices one, its own reduce-scatter and all-gather where it runs them).
bool has_constructors(AllReduceAlgorithm id);
std::unique_ptr<GradientSync> make_gradient_sync(RunContext* ctx);
// True when every forward starts with DDP's buffer broadcast (sync.buffer_broadcast > 0 under
// all-reduce, not with Horovod fusion or priority scheduling, which are not DDP): the workers
// then run it through a second instance of the gradient all-reduce, so a measured table or
// the link model costs it like a bucket of that size. For two ranks an all-reduce of S and
// rank 0's broadcast of S move the same bytes per link; for more ranks this is an upper bound
// (the ring sends 2(p-1)/p S per rank, a broadcast tree S).
bool uses_buffer_broadcast(const Scenario& scenario);
// A measured all-reduce table (sync.alpha_beta) checked against the scenario that uses it
// (profile/alpha_beta_use.h): InputError when a bucket lies outside its measured sizes, else the
// warnings (another scale, another GPU). Empty when no table is used.
std::vector<std::string> alpha_beta_warnings(const Scenario& scenario,
                                             const std::vector<Bucket>& buckets);
// One line on how synchronisation was modelled, for results.notes.
std::string sync_notes(const Scenario& scenario);

}  // namespace ddpsim
