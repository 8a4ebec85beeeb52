// Symmetric scope (simulation.scope, docs/scale.md): which scenarios may be simulated as a
// representative slice of the cluster, and that slice. Pure: no SimGrid.
//
// The slice is 2 leaves of a regular leaf-spine (every leaf full) — 2 nodes of each, keeping the
// whole leaf's uplink, where only ring-shaped calls cross the fabric — or 2 to a few nodes of a
// one-leaf cluster; every simulated rank runs the collective of the whole cluster
// (volumes, latency terms, tree depth and NCCL tuning for all N nodes, ClusterPlatform::
// logical_nodes), so each ring edge, NIC, leaf uplink and storage share carries what it carries
// in the full run and every simulated GPU's timeline is the full run's. That holds when every
// GPU does the same thing: identical nodes and leaves, no loader stalls or stragglers set on
// single GPUs, and an algorithm whose per-link load is the same in the slice (checked here, per
// algorithm). Stragglers drawn per GPU fold in expectation: a synchronous step waits for the
// slowest of N draws, so GPU 0 of the slice runs the expected slowest of N (order statistics,
// sim/cost/straggler_order.h) and the others a factor that keeps the slice's mean factor that
// of one draw. Anything else runs full
// (auto) or is refused (forced symmetric).
#pragma once

#include <string>

#include "sim/scenario/scenario.h"

namespace ddpsim {

// auto picks symmetric from this many GPUs on for a run that reports links and a trace (below
// it those are the whole cluster's, and a full run of an LLM step takes seconds); a run that
// reports its headline figures only (uncertainty draws) folds at every size it fits, where the
// fold gives the full run's numbers (docs/scale.md).
constexpr int kSymmetricFromGpus = 1024;

struct ScopeDecision {
  bool symmetric = false;
  int slice_nodes = 0;   // nodes simulated: the cluster's own count when full
  std::string note;      // which scope ran and why
  bool routine = false;  // auto ran full below its threshold: not worth a line in the summary
};

// Why the scenario cannot be folded ("" when it can); *slice_nodes gets the slice's node count.
std::string symmetry_obstacle(const Scenario& s, int* slice_nodes);

// The scope this run uses. Throws InputError at simulation.scope when symmetric is forced on a
// scenario it does not fit, naming what is supported. `headline_only`: the run reports no links
// and no trace (an uncertainty draw), so auto folds at any size.
ScopeDecision decide_scope(const Scenario& s, bool headline_only = false);

// Whether a run sends each node's parameter-server slices as one flow (node lanes,
// sim/engine/ps_engine.h): a headline-only run under scope auto, with synchronous servers, more
// than one GPU per node, one NIC per node (the CPU's) and no store read over the network, so
// that every flow crossing a NIC is a parameter server's, grouped by node (docs/scale.md, "Node
// lanes"). The engine and the resource estimate both ask this.
bool ps_node_lanes(const Scenario& s, bool headline_only);

// What the slice's bytes on fabric links (leaf uplinks and downlinks) are multiplied by to stand
// for the cluster's: its GPUs over the slice's, as every other total, except for a slice of cut
// leaves (2 nodes of each), whose fabric carries rings only, once out and once in per leaf:
// there the cluster's leaves over the slice's 2.
double fabric_bytes_fold(const Scenario& s, int slice_nodes);

// The scenario the simulator runs for a slice of `slice_nodes` nodes of the effective scenario
// `s` (effective_scenario.h): the same cluster cut to those nodes, a shared store's aggregate
// bandwidth and IOPS scaled to the slice's share, drawn stragglers replaced by fixed factors
// (folded_straggler_factors).
Scenario slice_scenario(const Scenario& s, int slice_nodes);

}  // namespace ddpsim
