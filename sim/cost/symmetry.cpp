#include "sim/cost/symmetry.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/cost/collective_formulas.h"
#include "sim/cost/nccl_tuning.h"
#include "sim/cost/straggler_order.h"
#include "sim/scenario/collective_algorithms.h"
#include "sim/text/input_error.h"

namespace ddpsim {
namespace {

const char* kSupported =
    "symmetric scope supports all-reduce and local SGD with algorithm ring, hierarchical, tree, "
    "nvls or auto in flow mode, sharded data parallelism (zero1, zero2, zero3, fsdp-hybrid) with "
    "ring, tree or auto, and synchronous dedicated parameter servers, FIFO bucket order, "
    "without alpha-beta tables, fixed stragglers or loader stalls, on full leaves (drawn "
    "stragglers fold as the expected slowest of N draws)";

// Tree neighbours of the busiest node over both trees of NCCL's double binary tree: with equal
// flows on every tree edge, the tree's flow time is set by this count alone.
int busiest_tree_node(int nodes) {
  int worst = 0;
  std::vector<int> degree(nodes, 0);
  for (const auto& tree : nccl_double_binary_tree(nodes))
    for (int n = 0; n < nodes; ++n)
      degree[n] += (tree[n].parent >= 0 ? 1 : 0) + static_cast<int>(tree[n].children.size());
  for (int d : degree) worst = std::max(worst, d);
  return worst;
}

// Nodes of each leaf the slice of a multi-leaf cluster simulates where the fabric allows fewer
// than the whole leaf (small_leaves_fold).
constexpr int kSliceNodesPerLeaf = 2;

bool drawn_stragglers(const Scenario& s) {
  return s.stragglers.kind == StragglerKind::kLognormal ||
         s.stragglers.kind == StragglerKind::kUniform;
}

// Sharded runs have no tree: NCCL runs all-gather and reduce-scatter as rings, and
// fsdp-hybrid's all-reduce across nodes runs as one ring per rail (sync_factory.h).
bool uses_tree(const SyncSpec& sync) {
  return sync.sharding.strategy == Sharding::kNone &&
         collective_algorithm(sync.algorithm).tree_flows;
}

// Whether the slice of a multi-leaf cluster may hold 2 nodes of each of its 2 leaves instead of
// the whole leaves, each keeping the whole leaf's uplink (slice_scenario). Ring-shaped calls
// (ring, hierarchical, local SGD, sharding's rings, fsdp-hybrid's rails) cross a leaf's uplink once
// out and once in per ring whatever the leaf holds, so the uplink carries in the small leaf
// what it carries in the whole one, at the same capacity, and every NIC what it carries in the
// cluster. Not for trees, NVLS's included (their edges across leaves depend on the leaf's size),
// parameter servers (every worker's flows cross the uplink), a shared store (every node's reads
// cross the downlink) or drawn stragglers (their fold is checked on whole leaves).
bool small_leaves_fold(const Scenario& s) {
  const DataSpec& d = s.data;
  return !uses_tree(s.sync) && s.sync.strategy != SyncStrategy::kParameterServer &&
         (d.synthetic || d.storage != StorageKind::kShared) && !drawn_stragglers(s);
}

// Whether the slice of `slice_nodes` cuts the cluster's leaves (small_leaves_fold).
bool cuts_leaves(const Scenario& s, int slice_nodes) {
  const int npl = s.cluster.fabric.nodes_per_leaf;
  return s.cluster.nodes > npl && slice_nodes < 2 * npl;
}

}  // namespace

std::string symmetry_obstacle(const Scenario& s, int* slice_nodes) {
  const ClusterSpec& c = s.cluster;
  const SyncSpec& sync = s.sync;
  *slice_nodes = c.nodes;
  if (c.total_gpus() == 1) return "one GPU";
  if (s.stragglers.kind == StragglerKind::kFixed) return "stragglers set on single GPUs";
  if (sync.strategy == SyncStrategy::kParameterServer) {
    // A dedicated server's NIC carries only server flows, one per worker, so scaling it to the
    // slice's share keeps each flow's max-min share. A colocated server's NIC also carries its
    // node's own GPUs' pushes and pulls, whose count does not scale with the cluster: no
    // capacity makes its share of n slice workers' flows that of N cluster workers'
    // (docs/scale.md).
    if (sync.ps.placement != PsPlacement::kDedicated)
      return "colocated and BytePS parameter servers are not folded (a server's NIC also carries "
             "its node's own pushes and pulls: no slice reproduces its sharing between them and "
             "every worker of the cluster)";
    if (sync.ps.mode != PsMode::kSync)
      return "asynchronous parameter servers are not folded (workers drift apart)";
  }
  if (sync.alpha_beta_timed()) return "an alpha-beta table times the calls (no links to fold)";
  if (sync.mode == CollectiveMode::kChunked) return "chunked collective mode";
  const CollectiveAlgorithm& algorithm = collective_algorithm(sync.algorithm);
  if (algorithm.not_folded != nullptr) return algorithm.not_folded;
  // Sharded runs: every rank of a shard group issues the same all-gathers and reduce-scatters
  // (ring over the world, or over a node plus a rail all-reduce for fsdp-hybrid), each a ring
  // that folds as DDP's does. Hierarchical halves are not checked against full runs here.
  if (sync.sharding.strategy != Sharding::kNone && algorithm.not_folded_sharded != nullptr)
    return algorithm.not_folded_sharded;
  if (auto_may_run_pat(s))
    return "auto on one GPU per node may run PAT for the sharded calls (NCCL's tuner picks it "
           "for small ones), whose log-step partners span the whole cluster";
  if (sync.sharding.strategy != Sharding::kNone && drawn_stragglers(s))
    // A GPU's late all-gather holds every rank of the ring, unit by unit: the fold by the
    // expected slowest draw is checked against seeded full runs for DDP only.
    return "drawn stragglers with sharding (the expected-slowest fold is checked for DDP, not "
           "for per-unit all-gathers)";
  if (sync.fusion.enabled) return "Horovod fusion (its coordination cost grows with the GPUs)";
  if (sync.schedule != CommSchedule::kFifo) return "priority scheduling is not folded";
  const DataSpec& d = s.data;
  if (!d.synthetic && d.stall_probability > 0) return "loader stalls drawn per GPU";
  if (!d.synthetic && d.samples > 0)
    return "data.samples set (each GPU's first epoch depends on the GPU count)";

  const int npl = c.fabric.nodes_per_leaf;
  const int leaves = c.leaves();
  const bool shared_store = !d.synthetic && d.storage == StorageKind::kShared;
  if (leaves >= 2) {
    if (c.nodes % npl != 0)
      return fmt::format("the last leaf is partial ({} nodes, {} per leaf)", c.nodes, npl);
    // Two leaves: every leaf sends one ring boundary up and takes one in, as in the full
    // cluster, and a shared store's reads cross every leaf's downlink the same way.
    *slice_nodes = 2 * (small_leaves_fold(s) ? std::min(npl, kSliceNodesPerLeaf) : npl);
    if (uses_tree(sync) && c.fabric.oversubscription > 1)
      return "tree on an oversubscribed fabric (its leaf-crossing edges differ per leaf)";
  } else {
    // One leaf: no traffic crosses the fabric except shared-store reads, which all nodes of
    // the leaf share on its downlink.
    if (shared_store) return "shared storage inside one leaf (every node shares its downlink)";
    *slice_nodes = 2;
  }
  if (uses_tree(sync)) {
    // The slice's trees must load their busiest NIC as the cluster's trees do.
    const int target = busiest_tree_node(c.nodes);
    while (*slice_nodes < c.nodes && busiest_tree_node(*slice_nodes) < target) {
      if (leaves >= 2) return "tree: the slice's trees would not load a NIC as the cluster's do";
      ++*slice_nodes;
    }
  }
  if (*slice_nodes >= c.nodes) return "the slice would be the whole cluster";
  if (drawn_stragglers(s) && sync.strategy == SyncStrategy::kParameterServer)
    // A GPU pushes as soon as its own backward produced a unit: the servers' NICs and sums see
    // every draw's arrival time, not just the slowest (measured: exposed communication 22 % off
    // the mean of full runs).
    return "stragglers with parameter servers (each GPU's pushes load the servers when its own "
           "draw lets it, so every draw matters, not just the slowest)";
  if (drawn_stragglers(s) && s.stragglers.per_iteration &&
      sync.strategy == SyncStrategy::kLocalSgd && sync.local_sgd_period > 1)
    // GPUs run a whole period between averagings: the step waits for the largest sum of
    // `period` draws, whose expectation is below period x the expected slowest of one step.
    return "stragglers redrawn every iteration under local SGD (the period waits for the "
           "largest sum of draws, not the sum of the largest)";
  if (drawn_stragglers(s)) {
    // The slice's other GPUs make up its mean factor; below 1 they would run faster than a GPU
    // can (and meet data waits no drawn GPU meets).
    double slowest = 1;
    const int slice_gpus = *slice_nodes * c.gpus_per_node;
    const double rest =
        folded_straggler_factors(s.stragglers, c.total_gpus(), slice_gpus, &slowest);
    if (rest < 1)
      return fmt::format(
          "stragglers: the expected slowest of {} draws ({:.4g}) outweighs the mean of the "
          "slice's {} GPUs (the others would need {:.4g} < 1)",
          c.total_gpus(), slowest, slice_gpus, rest);
  }
  return "";
}

bool ps_node_lanes(const Scenario& s, bool headline_only) {
  return headline_only && s.simulation.scope == SimulationScope::kAuto &&
         s.sync.strategy == SyncStrategy::kParameterServer && s.cluster.gpus_per_node > 1 &&
         s.sync.ps.mode == PsMode::kSync && s.cluster.nic.count == 1 &&
         (s.data.synthetic || s.data.storage != StorageKind::kShared);
}

ScopeDecision decide_scope(const Scenario& s, bool headline_only) {
  ScopeDecision d;
  int slice = 0;
  const std::string obstacle = symmetry_obstacle(s, &slice);
  const SimulationScope scope = s.simulation.scope;
  if (scope == SimulationScope::kSymmetric && !obstacle.empty()) {
    SourceLocation where = s.simulation.scope_where;
    if (where.file.empty()) where.file = s.source.empty() ? "<scenario>" : s.source;
    throw InputError(where, "simulation.scope: symmetric does not fit this scenario: " + obstacle +
                                "; " + kSupported + " (or use scope full or auto)");
  }
  // Below the threshold only where the fold is exact: drawn stragglers fold in expectation.
  const bool big =
      s.cluster.total_gpus() >= kSymmetricFromGpus || (headline_only && !drawn_stragglers(s));
  d.symmetric = obstacle.empty() &&
                (scope == SimulationScope::kSymmetric || (scope == SimulationScope::kAuto && big));
  d.slice_nodes = d.symmetric ? slice : s.cluster.nodes;
  if (d.symmetric) {
    const int npl = s.cluster.fabric.nodes_per_leaf;
    const int leaves = s.cluster.leaves();
    if (leaves < 2)
      d.note = fmt::format("symmetric: {} of {} nodes simulated, the rest folded in", slice,
                           s.cluster.nodes);
    else if (cuts_leaves(s, slice))
      d.note = fmt::format(
          "symmetric: 2 of {} leaves simulated, {} of each leaf's {} nodes ({} of {} nodes), the "
          "rest folded in",
          leaves, slice / 2, npl, slice, s.cluster.nodes);
    else
      d.note =
          fmt::format("symmetric: 2 of {} leaves simulated ({} of {} nodes), the rest folded in",
                      leaves, slice, s.cluster.nodes);
    if (scope == SimulationScope::kAuto)
      d.note +=
          s.cluster.total_gpus() >= kSymmetricFromGpus
              ? fmt::format(" (auto: {} GPUs >= {})", s.cluster.total_gpus(), kSymmetricFromGpus)
              : std::string(" (auto: headline figures only, the cluster is regular)");
    if (drawn_stragglers(s))
      d.note += fmt::format("; stragglers: expected slowest of {} draws (order statistics)",
                            s.cluster.total_gpus());
  } else if (scope == SimulationScope::kFull) {
    d.note = "full: simulation.scope full";
  } else if (!obstacle.empty() && big) {
    d.note = "full: symmetric does not fit (" + obstacle + ")";
  } else {
    d.routine = true;
    d.note = fmt::format("full: {} GPUs (auto folds from {})", s.cluster.total_gpus(),
                         kSymmetricFromGpus);
  }
  return d;
}

double fabric_bytes_fold(const Scenario& s, int slice_nodes) {
  if (!cuts_leaves(s, slice_nodes))
    return static_cast<double>(s.cluster.nodes) / static_cast<double>(slice_nodes);
  return s.cluster.leaves() / 2.0;
}

Scenario slice_scenario(const Scenario& s, int slice_nodes) {
  Scenario slice = s;
  slice.cluster.nodes = slice_nodes;
  const int npl = s.cluster.fabric.nodes_per_leaf;
  if (cuts_leaves(s, slice_nodes)) {
    // Two leaves of fewer nodes (small_leaves_fold): each keeps the whole leaf's uplink, whose
    // capacity is nodes_per_leaf x NICs / oversubscription (cluster_platform.h).
    FabricSpec& fabric = slice.cluster.fabric;
    fabric.nodes_per_leaf = slice_nodes / 2;
    fabric.oversubscription = s.cluster.fabric.oversubscription * fabric.nodes_per_leaf / npl;
  }
  // Max-min fairness gives N identical clients B/N each of a resource they all share; the
  // slice's clients get the same from B * slice/N.
  const double share = static_cast<double>(slice_nodes) / s.cluster.nodes;
  if (!s.data.synthetic && s.data.storage == StorageKind::kShared) {
    slice.data.storage_bandwidth *= share;
    slice.data.storage_iops *= share;
  }
  if (s.sync.strategy == SyncStrategy::kParameterServer) {
    // A dedicated server's NIC carries every worker's pushes and pulls: its share scales to the
    // slice's workers. (Its sums of every worker's push are folded by the servers themselves,
    // ps_sync.cpp; the update, once per partition, does not scale.) `s` is the effective
    // scenario: the NIC's bandwidth is resolved.
    slice.sync.ps.server_nic_bandwidth *= share;
  }
  if (drawn_stragglers(s)) {
    // A synchronous step waits for the slowest of the cluster's GPUs: GPU 0 runs the expected
    // slowest of N draws, the others what keeps the slice's mean factor that of one draw
    // (symmetry_obstacle checked it is >= 1), the same every step (per_iteration redraws change
    // who is slowest, not the step's expectation). The slice runs them as fixed factors.
    double slowest = 1;
    const int slice_gpus = slice.cluster.total_gpus();
    const double rest =
        folded_straggler_factors(s.stragglers, s.cluster.total_gpus(), slice_gpus, &slowest);
    StragglerSpec folded;
    folded.kind = StragglerKind::kFixed;
    folded.fixed[0] = slowest;
    for (int r = 1; r < slice_gpus; ++r) folded.fixed[r] = rest;
    slice.stragglers = folded;
  }
  return slice;
}

}  // namespace ddpsim
