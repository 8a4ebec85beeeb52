#include "sim/cost/symmetry.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/cost/collective_formulas.h"
#include "sim/util/input_error.h"

namespace ddpsim {
namespace {

const char* kSupported =
    "symmetric scope supports all-reduce and local SGD with algorithm ring, hierarchical, tree "
    "or auto in flow mode, and synchronous dedicated parameter servers, FIFO bucket order, "
    "without alpha-beta tables, stragglers or loader stalls, on full leaves";

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

bool uses_tree(AllReduceAlgorithm a) {
  return a == AllReduceAlgorithm::kTree || a == AllReduceAlgorithm::kAuto;
}

}  // namespace

std::string symmetry_obstacle(const Scenario& s, int* slice_nodes) {
  const ClusterSpec& c = s.cluster;
  const SyncSpec& sync = s.sync;
  *slice_nodes = c.nodes;
  if (c.total_gpus() == 1) return "one GPU";
  if (s.stragglers.kind != StragglerKind::kNone)
    return s.stragglers.kind == StragglerKind::kFixed ? "stragglers set on single GPUs"
                                                      : "stragglers drawn per GPU";
  if (sync.strategy == SyncStrategy::kParameterServer) {
    if (sync.ps.placement != PsPlacement::kDedicated)
      return "colocated and BytePS parameter servers are not folded (servers on the nodes)";
    if (sync.ps.mode != PsMode::kSync)
      return "asynchronous parameter servers are not folded (workers drift apart)";
  }
  if (!sync.alpha_beta.empty() || !sync.alpha_beta_table.empty())
    return "an alpha-beta table times the calls (no links to fold)";
  if (sync.mode == CollectiveMode::kChunked) return "chunked collective mode";
  if (sync.algorithm == AllReduceAlgorithm::kHalvingDoubling)
    return "halving-doubling is not folded (ring, hierarchical, tree and auto are)";
  if (sync.sharding.strategy != Sharding::kNone)
    return "sharded data parallelism (sync.sharding) is not folded";
  if (sync.fusion.enabled) return "Horovod fusion (its coordination cost grows with the GPUs)";
  if (sync.schedule != CommSchedule::kFifo) return "priority scheduling is not folded";
  const DataSpec& d = s.data;
  if (!d.synthetic && d.stall_probability > 0) return "loader stalls drawn per GPU";
  if (!d.synthetic && d.samples > 0)
    return "data.samples set (each GPU's first epoch depends on the GPU count)";

  const int npl = c.fabric.nodes_per_leaf;
  const int leaves = (c.nodes + npl - 1) / npl;
  const bool shared_store = !d.synthetic && d.storage == StorageKind::kShared;
  if (leaves >= 2) {
    if (c.nodes % npl != 0)
      return fmt::format("the last leaf is partial ({} nodes, {} per leaf)", c.nodes, npl);
    // Two whole leaves: every leaf sends one ring boundary up and takes one in, as in the full
    // cluster, and a shared store's reads cross every leaf's downlink the same way.
    *slice_nodes = 2 * npl;
    if (uses_tree(sync.algorithm) && c.fabric.oversubscription > 1)
      return "tree on an oversubscribed fabric (its leaf-crossing edges differ per leaf)";
  } else {
    // One leaf: no traffic crosses the fabric except shared-store reads, which all nodes of
    // the leaf share on its downlink.
    if (shared_store) return "shared storage inside one leaf (every node shares its downlink)";
    *slice_nodes = 2;
  }
  if (uses_tree(sync.algorithm)) {
    // The slice's trees must load their busiest NIC as the cluster's trees do.
    const int target = busiest_tree_node(c.nodes);
    while (*slice_nodes < c.nodes && busiest_tree_node(*slice_nodes) < target) {
      if (leaves >= 2) return "tree: the slice's trees would not load a NIC as the cluster's do";
      ++*slice_nodes;
    }
  }
  if (*slice_nodes >= c.nodes) return "the slice would be the whole cluster";
  return "";
}

ScopeDecision decide_scope(const Scenario& s) {
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
  const bool big = s.cluster.total_gpus() >= kSymmetricFromGpus;
  d.symmetric = obstacle.empty() &&
                (scope == SimulationScope::kSymmetric || (scope == SimulationScope::kAuto && big));
  d.slice_nodes = d.symmetric ? slice : s.cluster.nodes;
  if (d.symmetric) {
    const int npl = s.cluster.fabric.nodes_per_leaf;
    const int leaves = (s.cluster.nodes + npl - 1) / npl;
    d.note = leaves >= 2 ? fmt::format(
                               "symmetric: 2 of {} leaves simulated ({} of {} nodes), the rest "
                               "folded in",
                               leaves, slice, s.cluster.nodes)
                         : fmt::format("symmetric: {} of {} nodes simulated, the rest folded in",
                                       slice, s.cluster.nodes);
    if (scope == SimulationScope::kAuto)
      d.note += fmt::format(" (auto: {} GPUs >= {})", s.cluster.total_gpus(), kSymmetricFromGpus);
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

Scenario slice_scenario(const Scenario& s, int slice_nodes) {
  Scenario slice = s;
  slice.cluster.nodes = slice_nodes;
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
    // ps_sync.cpp; the update, once per partition, does not scale.)
    ParameterServerSpec& ps = slice.sync.ps;
    ps.server_nic_bandwidth =
        (ps.server_nic_bandwidth > 0 ? ps.server_nic_bandwidth : s.cluster.nic.bandwidth) * share;
  }
  return slice;
}

}  // namespace ddpsim
