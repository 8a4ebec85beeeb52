// The collective algorithms `sync.algorithm` names, one row each: its name, the NCCL algorithm it
// stands for, which calls it prices, when NCCL's latency table prices them, whether the symmetric
// scope folds it, what the resource guard counts for one call, and which scenarios cannot run it.
// Every place that once switched over the algorithms reads its row instead (enum names, the
// loader's checks, `ddpsim nccl-tests`, resource_estimate.cpp, symmetry.cpp, the ledger's NCCL-latency row); the
// SimGrid constructors sit in the matching row of sync_factory.cpp (the core library holds no
// SimGrid code). A new algorithm: its file under sim/collectives/, a row here, a row there, and
// its value in AllReduceAlgorithm (scenario.h).
#pragma once

#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ddpsim {

// When NCCL's latency table (nccl_tuning.h) prices a call instead of the plain per-message alpha.
enum class NcclLatencyUse { kNever, kFlowMode, kAlways };

// What sharding's reduce-scatter and all-gather over the world run under this algorithm.
enum class ShardedRun {
  kRing,     // NCCL's ring (NCCL has no tree or NVLS reduce-scatter across nodes)
  kOwn,      // the algorithm's own reduce-scatter and all-gather
  kRefused,  // not modelled: the loader refuses the pair
};

// The figures the resource guard counts, for one call over every rank.
struct GuardShape {
  double p = 0;             // ranks
  double ring_flow = 0;     // the ring's flows per call in flow mode (p x out-edges per rank)
  double ring_chunked = 0;  // its messages in chunked mode, 2(p-1)p x out-edges
  double tree = 0;          // the tree's flows, 4p
  int gpus_per_node = 1;
  bool chunked = false;  // sync.mode chunked
};
struct GuardFigures {
  double messages = 0, sleeps = 0;
  const char* description = "";
};

struct CollectiveAlgorithm {
  AllReduceAlgorithm id;
  const char* name;           // as sync.algorithm spells it
  const char* nccl_tuner_id;  // NCCL's NCCL_ALGO_* it models; "" where NCCL has none
  bool all_reduce;  // prices DDP's all-reduce (false: only zero1-3's calls; the loader refuses
                    // it otherwise)
  ShardedRun sharded;
  bool chunked_mode;  // has a chunked mode (sync.mode chunked: one message per step)
  NcclLatencyUse nccl_latency;  // for its all-reduce calls (sharded ring calls: kFlowMode)
  bool tree_flows;              // some calls cross nodes on NCCL's trees (symmetry: leaf uplinks)
  const char* not_folded;          // why the symmetric scope does not fold it; nullptr: it does
  const char* not_folded_sharded;  // the same under sharding; nullptr: folds as the ring
  GuardFigures (*guard)(const GuardShape&);  // one all-reduce call
  // One sharded reduce-scatter or all-gather call; nullptr: the ring's (one flow per ring edge
  // and rank, a sleep per rank).
  GuardFigures (*sharded_guard)(const GuardShape&);
  // Why `cluster` cannot run it ("": it can); nullptr: every cluster can. (NVLS's reason needs
  // NCCL's tuning: nvls_unsupported_reason, nccl_tuning.h.)
  std::string (*unsupported)(const ClusterSpec& cluster);
};

// Every row, in the order `ddpsim` lists the choices.
const std::vector<CollectiveAlgorithm>& collective_algorithms();
// "ring, tree, ...": the algorithms that price DDP's all-reduce, for messages.
std::string all_reduce_algorithm_names();
// The row of `id` (every value of AllReduceAlgorithm has one: collective_algorithms_test).
const CollectiveAlgorithm& collective_algorithm(AllReduceAlgorithm id);

}  // namespace ddpsim
