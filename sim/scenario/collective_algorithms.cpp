#include "sim/scenario/collective_algorithms.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ddpsim {
namespace {

GuardFigures ring(const GuardShape& g) {
  if (g.chunked)
    return {g.ring_chunked, 2 * (g.p - 1) * g.p, "ring, chunked mode: 2(p-1)p messages per bucket"};
  return {g.ring_flow, g.p, "ring, flow mode: one flow per ring edge per bucket"};
}

GuardFigures tree(const GuardShape& g) {
  return {g.tree, g.p, "tree: one flow per tree and chain edge per bucket"};
}

GuardFigures nccl_auto(const GuardShape& g) {
  if (g.chunked)
    return {std::max(g.ring_chunked, g.tree), 2 * (g.p - 1) * g.p,
            "auto (ring chunked or tree): up to 2(p-1)p messages per bucket"};
  return {g.tree, g.p, "auto (ring or tree), flow mode"};
}

GuardFigures nvls(const GuardShape& g) {
  return {g.p * (g.gpus_per_node - 1) + g.tree, g.p,
          "nvls: one flow per GPU pair of a node and per tree edge per bucket"};
}

GuardFigures halving_doubling(const GuardShape& g) {
  const double q = std::exp2(std::floor(std::log2(g.p)));
  const double messages = 2 * q * std::log2(q) + 4 * (g.p - q);
  return {messages, messages, "halving-doubling: 2p log2(p) messages per bucket"};
}

GuardFigures hierarchical(const GuardShape& g) {
  return {3 * g.p, 3 * g.p, "hierarchical: three ring phases of one flow per edge"};
}

// PAT: ceil(log2 p) steps, one message per rank and step, each paying its latency.
GuardFigures pat(const GuardShape& g) {
  const double steps = std::ceil(std::log2(g.p));
  return {g.p * steps, g.p * steps, "pat: ceil(log2 p) messages per rank per call"};
}

// auto's sharded calls: NCCL's ring, or, on one GPU per node, PAT where NCCL's tuner picks it
// (auto_may_run_pat, nccl_tuning.h): the larger of the two counts.
GuardFigures nccl_auto_sharded(const GuardShape& g) {
  const GuardFigures r = ring(g);
  if (g.chunked || g.gpus_per_node != 1) return r;
  const GuardFigures q = pat(g);
  return {std::max(r.messages, q.messages), std::max(r.sleeps, q.sleeps),
          "auto (ring, or pat on one GPU per node): up to ceil(log2 p) messages per rank per call"};
}

// NCCL enables PAT only where every rank is its own node (ncclPatEnable: nNodes == nRanks;
// docs/scale.md).
std::string pat_unsupported(const ClusterSpec& c) {
  if (c.gpus_per_node == 1) return "";
  return "pat needs one GPU per node: NCCL runs PAT only where every rank is its own node "
         "(ncclPatEnable: nNodes == nRanks); this cluster has " +
         std::to_string(c.gpus_per_node) +
         " GPUs per node; allowed with several GPUs per node: ring, auto (NCCL's ring)";
}

}  // namespace

const std::vector<CollectiveAlgorithm>& collective_algorithms() {
  using A = AllReduceAlgorithm;
  using L = NcclLatencyUse;
  using S = ShardedRun;
  static const std::vector<CollectiveAlgorithm> rows = {
      {.id = A::kRing,
       .name = "ring",
       .nccl_tuner_id = "NCCL_ALGO_RING",
       .all_reduce = true,
       .sharded = S::kRing,
       .chunked_mode = true,
       .nccl_latency = L::kFlowMode,
       .tree_flows = false,
       .not_folded = nullptr,
       .not_folded_sharded = nullptr,
       .guard = ring,
       .sharded_guard = nullptr,
       .unsupported = nullptr},
      {.id = A::kTree,
       .name = "tree",
       .nccl_tuner_id = "NCCL_ALGO_TREE",
       .all_reduce = true,
       .sharded = S::kRing,
       .chunked_mode = false,
       .nccl_latency = L::kAlways,
       .tree_flows = true,
       .not_folded = nullptr,
       .not_folded_sharded = nullptr,
       .guard = tree,
       .sharded_guard = nullptr,
       .unsupported = nullptr},
      {.id = A::kHalvingDoubling,
       .name = "halving-doubling",
       .nccl_tuner_id = "",  // MPICH's and Gloo's, not NCCL's
       .all_reduce = true,
       .sharded = S::kOwn,
       .chunked_mode = false,
       .nccl_latency = L::kNever,
       .tree_flows = false,
       .not_folded = "halving-doubling is not folded (ring, hierarchical, tree, nvls and auto are)",
       .not_folded_sharded = nullptr,
       .guard = halving_doubling,
       .sharded_guard = nullptr,
       .unsupported = nullptr},
      {.id = A::kHierarchical,
       .name = "hierarchical",
       .nccl_tuner_id = "",  // Horovod's hierarchical all-reduce
       .all_reduce = true,
       .sharded = S::kOwn,
       .chunked_mode = false,
       .nccl_latency = L::kNever,
       .tree_flows = false,
       .not_folded = nullptr,
       .not_folded_sharded =
           "sharding with the hierarchical algorithm is not folded (ring, tree and auto, which "
           "run NCCL's ring for all-gather and reduce-scatter, are)",
       .guard = hierarchical,
       .sharded_guard = nullptr,
       .unsupported = nullptr},
      {.id = A::kAuto,
       .name = "auto",
       .nccl_tuner_id =
           "NCCL_ALGO_RING, NCCL_ALGO_TREE, NCCL_ALGO_PAT (sharded, one GPU per node): NCCL's "
           "own choice",
       .all_reduce = true,
       .sharded = S::kRing,
       .chunked_mode = true,
       .nccl_latency = L::kFlowMode,
       .tree_flows = true,
       .not_folded = nullptr,
       .not_folded_sharded = nullptr,
       .guard = nccl_auto,
       .sharded_guard = nccl_auto_sharded,
       .unsupported = nullptr},
      {.id = A::kNvls,
       .name = "nvls",
       .nccl_tuner_id = "NCCL_ALGO_NVLS, NCCL_ALGO_NVLS_TREE",
       .all_reduce = true,
       .sharded = S::kRefused,
       .chunked_mode = false,
       .nccl_latency = L::kAlways,
       .tree_flows = true,
       .not_folded = nullptr,
       .not_folded_sharded = nullptr,
       .guard = nvls,
       .sharded_guard = nullptr,
       .unsupported = nullptr},  // parse_sync.cpp's check_nvls (NCCL's tuning decides)
      {.id = A::kPat,
       .name = "pat",
       .nccl_tuner_id = "NCCL_ALGO_PAT",
       .all_reduce = false,
       .sharded = S::kOwn,
       .chunked_mode = false,
       .nccl_latency = L::kNever,
       .tree_flows = false,
       .not_folded = "pat is not folded (its log-step partners span the whole cluster)",
       .not_folded_sharded = nullptr,
       .guard = nullptr,
       .sharded_guard = pat,
       .unsupported = pat_unsupported},
  };
  return rows;
}

std::string all_reduce_algorithm_names() {
  std::string names;
  for (const CollectiveAlgorithm& row : collective_algorithms())
    if (row.all_reduce) names += (names.empty() ? "" : ", ") + std::string(row.name);
  return names;
}

const CollectiveAlgorithm& collective_algorithm(AllReduceAlgorithm id) {
  for (const CollectiveAlgorithm& row : collective_algorithms())
    if (row.id == id) return row;
  throw std::logic_error("an all-reduce algorithm without a row in collective_algorithms()");
}

}  // namespace ddpsim
