#include "sim/engine/sync_factory.h"

#include <cstdio>
#include <map>
#include <stdexcept>

#include "sim/cost/collective_formulas.h"
#include "sim/cost/nccl_tuning.h"
#include "sim/engine/allreduce_sync.h"
#include "sim/engine/ps_sync.h"
#include "sim/engine/scheduled_allreduce.h"
#include "sim/measurements/alpha_beta_use.h"
#include "sim/measurements/calibration_profile.h"
#include "sim/scenario/collective_algorithms.h"
#include "sim/scenario/enum_names.h"
#include "sim/text/input_error.h"
#include "sim/text/units.h"

namespace ddpsim {
namespace {

// The sweeps of `op` in the file sync.alpha_beta_table names, as the loader read them; empty
// when there is no file or it times no such collective.
const std::map<AllReduceAlgorithm, CollectiveSweep>& measured_sweeps(const Scenario& s,
                                                                     CollectiveOp op) {
  static const std::map<AllReduceAlgorithm, CollectiveSweep> kNone;
  if (s.sync.alpha_beta_table.empty()) return kNone;
  if (!s.sync.alpha_beta_file)
    throw std::logic_error("sync.alpha_beta without the table the loader reads");
  const auto it = s.sync.alpha_beta_file->sweeps.find(op);
  return it == s.sync.alpha_beta_file->sweeps.end() ? kNone : it->second;
}

// The fits of those sweeps, by algorithm.
AlphaBetaTable measured_table(const Scenario& s, CollectiveOp op) {
  AlphaBetaTable table;
  for (const auto& [algorithm, sweep] : measured_sweeps(s, op)) table[algorithm] = sweep.fit;
  return table;
}

// The measured all-reduce table: given in code (sync.alpha_beta) or the loaded file's.
AlphaBetaTable alpha_beta_table(const Scenario& s) {
  if (!s.sync.alpha_beta.empty()) return s.sync.alpha_beta;
  return measured_table(s, CollectiveOp::kAllReduce);
}

bool uses_alpha_beta(const Scenario& s) {
  return s.cluster.total_gpus() > 1 && s.sync.alpha_beta_timed();
}

// What a ring or tree call charges besides its flows, as the scenario's sync section states it.
CollectiveCost collective_cost(const Scenario& s) {
  return {s.sync.latency_model, s.sync.protocol, s.sync.nccl_latency};
}

// "/ zero3 (FSDP FULL_SHARD) over 64 GPUs, 33 units, ring, backward prefetch pre, ...".
std::string sharding_notes(const Scenario& s) {
  const ShardingSpec& sh = s.sync.sharding;
  std::string notes = std::string(" / ") + enum_name(sh.strategy);
  switch (sh.strategy) {
    case Sharding::kZero1:
      notes += " (DeepSpeed ZeRO stage 1: optimizer state sharded";
      break;
    case Sharding::kZero2:
      notes += " (DeepSpeed ZeRO stage 2: gradients and optimizer state sharded";
      break;
    case Sharding::kZero3:
      notes += " (FSDP FULL_SHARD / ZeRO stage 3: everything sharded";
      break;
    case Sharding::kHybrid:
      notes += " (FSDP HYBRID_SHARD: sharded inside each node, shards all-reduced across nodes";
      break;
    case Sharding::kNone:
      break;
  }
  notes += std::string("), ") + algorithm_name(s.sync.algorithm);
  if (sh.strategy == Sharding::kZero3 || sh.strategy == Sharding::kHybrid) {
    notes += std::string(", units ") +
             (sh.wrap_min_params > 0 ? "of >= " + std::to_string(sh.wrap_min_params) + " params"
                                     : "per layer") +
             ", backward prefetch " + enum_name(sh.backward_prefetch) +
             (sh.forward_prefetch ? ", forward prefetch" : "") +
             (sh.limit_all_gathers ? ", all-gathers limited" : ", all-gathers unlimited");
  } else {
    notes += ", reduce-scatter in " + units::format_bytes(s.sync.bucket_cap) + " buckets";
  }
  if (s.training.activation_checkpointing) notes += ", activation checkpointing";
  return notes;
}

}  // namespace

PlatformExtras platform_extras(const Scenario& s) {
  PlatformExtras extras;
  if (s.sync.strategy == SyncStrategy::kParameterServer &&
      s.sync.ps.placement != PsPlacement::kColocated) {
    extras.dedicated_servers = s.sync.ps.servers;
    extras.server_bandwidth = s.sync.ps.server_nic_bandwidth;
  }
  if (!s.data.synthetic && s.data.storage == StorageKind::kShared) {
    extras.shared_storage = true;
    extras.storage_bandwidth = s.data.storage_bandwidth;
    extras.storage_client_bandwidth = s.data.client_bandwidth;
  }
  return extras;
}

std::vector<std::string> alpha_beta_warnings(const Scenario& s,
                                             const std::vector<Bucket>& buckets) {
  if (!uses_alpha_beta(s) || s.sync.alpha_beta_table.empty() ||
      s.sync.strategy == SyncStrategy::kParameterServer)
    return {};
  const auto& sweeps = measured_sweeps(s, CollectiveOp::kAllReduce);
  auto it = sweeps.find(s.sync.algorithm);
  if (it == sweeps.end()) it = sweeps.find(AllReduceAlgorithm::kAuto);
  if (it == sweeps.end()) return {};  // make_allreduce says so
  std::vector<double> bytes;
  for (const Bucket& b : buckets) bytes.push_back(b.bytes);
  SourceLocation where = s.sync.alpha_beta_where;
  if (where.file.empty()) where.file = s.sync.alpha_beta_table;
  return check_alpha_beta_use(it->second, s.cluster, bytes, s.sync.alpha_beta_table, where);
}

// NCCL's PAT all-gather and reduce-scatter (pat_collective.cpp).
std::unique_ptr<AllReduce> make_pat_collective(Transport* transport, CollectiveOp op);

namespace {

// The SimGrid half of each row of collective_algorithms(): what builds its calls.
struct Constructors {
  AllReduceAlgorithm id;
  // DDP's all-reduce; nullptr where the algorithm prices none.
  std::unique_ptr<AllReduce> (*all_reduce)(const Scenario&, Transport*, CollectiveCost);
  // Its own reduce-scatter and all-gather (ShardedRun::kOwn); nullptr otherwise.
  std::unique_ptr<AllReduce> (*sharded)(Transport*, CollectiveOp);
};

const Constructors kConstructors[] = {
    {AllReduceAlgorithm::kRing,
     [](const Scenario& s, Transport* t, CollectiveCost cost) {
       return make_ring_allreduce(t, s.sync.mode, s.sync.channels, cost);
     },
     nullptr},
    {AllReduceAlgorithm::kTree,
     [](const Scenario& s, Transport* t, CollectiveCost cost) {
       return make_tree_allreduce(t, s.sync.channels, cost);
     },
     nullptr},
    {AllReduceAlgorithm::kHalvingDoubling,
     [](const Scenario&, Transport* t, CollectiveCost) {
       return make_halving_doubling_allreduce(t);
     },
     make_halving_doubling_collective},
    {AllReduceAlgorithm::kHierarchical,
     [](const Scenario&, Transport* t, CollectiveCost) { return make_hierarchical_allreduce(t); },
     make_hierarchical_collective},
    {AllReduceAlgorithm::kAuto,
     [](const Scenario& s, Transport* t, CollectiveCost cost) {
       return make_auto_allreduce(t, s.sync.mode, s.sync.channels, cost);
     },
     nullptr},
    {AllReduceAlgorithm::kNvls,
     [](const Scenario& s, Transport* t, CollectiveCost cost) {
       return make_nvls_allreduce(t, s.sync.channels, cost);
     },
     nullptr},
    {AllReduceAlgorithm::kPat, nullptr, make_pat_collective},
};

const Constructors& constructors(AllReduceAlgorithm id) {
  for (const Constructors& row : kConstructors)
    if (row.id == id) return row;
  throw std::logic_error(std::string("no constructors for algorithm ") + algorithm_name(id));
}

}  // namespace

bool has_constructors(AllReduceAlgorithm id) {
  const CollectiveAlgorithm& row = collective_algorithm(id);
  for (const Constructors& c : kConstructors)
    if (c.id == id)
      return (c.all_reduce != nullptr) == row.all_reduce &&
             (c.sharded != nullptr) == (row.sharded == ShardedRun::kOwn);
  return false;
}

std::unique_ptr<AllReduce> make_allreduce(const Scenario& s, Transport* transport) {
  if (uses_alpha_beta(s)) {
    AlphaBetaTable table = alpha_beta_table(s);
    if (!alpha_beta_time(table, s.sync.algorithm, 1.0))
      throw InputError({s.sync.alpha_beta_table, 0, 0},
                       std::string("the alpha-beta table has no all_reduce rows for algorithm '") +
                           algorithm_name(s.sync.algorithm) +
                           "' nor for 'auto'; add them or choose an algorithm it has");
    return make_alpha_beta_allreduce(transport, s.sync.algorithm, std::move(table));
  }
  const auto make = constructors(s.sync.algorithm).all_reduce;
  if (make == nullptr)  // the loader refuses it without sharding
    throw std::invalid_argument(std::string("make_allreduce: ") + algorithm_name(s.sync.algorithm) +
                                " prices no all-reduce");
  return make(s, transport, collective_cost(s));
}

std::unique_ptr<AllReduce> make_collective(const Scenario& s, Transport* transport, CollectiveOp op,
                                           CollectiveGroup group) {
  if (op == CollectiveOp::kBroadcast)
    throw std::invalid_argument("make_collective: broadcast is not modelled");
  if (op == CollectiveOp::kAllReduce && group == CollectiveGroup::kWorld)
    return make_allreduce(s, transport);
  if (uses_alpha_beta(s)) {
    // Measured rows of that collective over the whole cluster, never all-reduce rows reused
    // silently: another collective, or a smaller communicator, has other costs.
    const SourceLocation where{s.sync.alpha_beta_table, 0, 0};
    if (group != CollectiveGroup::kWorld)
      throw InputError(where, std::string("the alpha-beta table times the whole cluster's "
                                          "communicator, not a ") +
                                  (group == CollectiveGroup::kNode ? "node" : "rail") +
                                  " group; remove sync.alpha_beta_table to simulate the links");
    // (a table given in code holds all-reduce rows only)
    AlphaBetaTable table = measured_table(s, op);
    if (!alpha_beta_time(table, s.sync.algorithm, 1.0))
      throw InputError(where, std::string("the alpha-beta table has no ") + collective_op_key(op) +
                                  " rows for algorithm '" + algorithm_name(s.sync.algorithm) +
                                  "' nor for 'auto'; add them (e.g. an imported " +
                                  collective_op_key(op) +
                                  "_perf log) or remove sync.alpha_beta_table to simulate the "
                                  "links");
    return make_alpha_beta_collective(transport, op, s.sync.algorithm, std::move(table));
  }
  const CollectiveCost cost = collective_cost(s);
  if (group != CollectiveGroup::kWorld)
    return make_group_collective(transport, op, group, s.sync.mode, cost);
  switch (collective_algorithm(s.sync.algorithm).sharded) {
    case ShardedRun::kRing:  // NCCL has no tree reduce-scatter or all-gather, so auto's choice
                             // is among the ring's protocols, and PAT's where NCCL enables it
      if (auto_may_run_pat(s))
        return make_auto_collective(transport, op, s.sync.mode, s.sync.channels, cost);
      return make_ring_collective(transport, op, s.sync.mode, s.sync.channels, cost);
    case ShardedRun::kOwn:
      return constructors(s.sync.algorithm).sharded(transport, op);
    case ShardedRun::kRefused:
      // The scenario checks refuse sharding with it; `nccl-tests --op` checks its own.
      throw std::invalid_argument(std::string("make_collective: ") +
                                  algorithm_name(s.sync.algorithm) +
                                  " is modelled for all-reduce only (reduce-scatter and all-gather "
                                  "run NCCL's ring: sync.algorithm ring or auto)");
  }
  throw std::logic_error("unknown all-reduce algorithm");
}

bool uses_buffer_broadcast(const Scenario& s) {
  return s.sync.buffer_broadcast > 0 && s.sync.strategy == SyncStrategy::kAllReduce &&
         !s.sync.fusion.enabled && s.sync.schedule == CommSchedule::kFifo &&
         s.cluster.total_gpus() > 1;
}

std::unique_ptr<GradientSync> make_gradient_sync(RunContext* ctx) {
  const Scenario& s = *ctx->scenario;
  const int period = s.sync.strategy == SyncStrategy::kLocalSgd ? s.sync.local_sgd_period : 1;
  switch (s.sync.strategy) {
    case SyncStrategy::kAllReduce:
    case SyncStrategy::kLocalSgd:
      if (s.sync.fusion.enabled)
        return make_fusion_sync(ctx, make_allreduce(s, ctx->transport.get()), period);
      if (s.sync.schedule == CommSchedule::kPriority)
        return make_priority_sync(ctx, make_allreduce(s, ctx->transport.get()), period);
      return make_allreduce_sync(ctx, make_allreduce(s, ctx->transport.get()), period);
    case SyncStrategy::kParameterServer:
      return make_ps_sync(ctx, ps_layout(s, *ctx->platform),
                          s.sync.ps.placement == PsPlacement::kByteps ? s.cluster.nodes : -1);
  }
  throw std::logic_error("unknown sync strategy");
}

std::string sync_notes(const Scenario& s) {
  std::string notes = strategy_name(s.sync.strategy);
  if (s.sync.strategy == SyncStrategy::kParameterServer) {
    const ParameterServerSpec& ps = s.sync.ps;
    auto count = [](int n, const char* what) {
      return std::to_string(n) + " " + what + " server" + (n == 1 ? "" : "s");
    };
    if (ps.placement == PsPlacement::kByteps) {
      const BytepsShares shares = byteps_shares(s.cluster.nodes, ps.servers);
      char split[128];
      if (shares.colocated == 0)  // as many CPU servers as nodes: they take everything
        std::snprintf(split, sizeof split, " (the CPU servers hold %.3g %% each, the colocated 0)",
                      100 * shares.cpu);
      else
        std::snprintf(split, sizeof split, " holding %.3g %% and %.3g %% of the parameters each",
                      100 * shares.colocated, 100 * shares.cpu);
      notes += " / byteps: " + count(s.cluster.nodes, "colocated") + " + " +
               count(ps.servers, "CPU") + split + ", ";
    } else {
      notes +=
          " / " +
          count(ps.servers, ps.placement == PsPlacement::kDedicated ? "dedicated" : "colocated") +
          ", ";
    }
    notes += (ps.mode == PsMode::kSync ? std::string("sync")
                                       : "async (staleness " + std::to_string(ps.staleness) +
                                             "; samples/s sums the workers' own rates)");
    notes += ", " + units::format_bytes(s.sync.partition) + " partitions placed by " +
             enum_name(ps.key_placement) + ", update on the " + enum_name(ps.update) + ", pull " +
             enum_name(ps.pull);
    if (s.sync.schedule == CommSchedule::kPriority) notes += ", priority scheduling";
    // Each node reduces its GPUs' gradients and pushes once: beyond one server per pushing node
    // the NICs of the nodes bound the transfer, and a further server only lengthens the
    // pipeline's fill (docs/sync-comparison.md, "More servers than nodes").
    if (ps.placement == PsPlacement::kDedicated && ps.servers > s.cluster.nodes)
      notes += "; " + std::to_string(ps.servers) + " servers for " +
               std::to_string(s.cluster.nodes) +
               " pushing node(s): from one server per node on, each node's NIC bounds the "
               "transfer and a further server only lengthens the pipeline's fill, so the step "
               "can be slightly slower than with fewer (docs/sync-comparison.md)";
  } else if (s.sync.sharding.strategy != Sharding::kNone) {
    notes += sharding_notes(s);
  } else {
    notes += std::string(" / ") + algorithm_name(s.sync.algorithm);
    if (uses_alpha_beta(s))
      notes += " (alpha-beta table " + s.sync.alpha_beta_table + ": measured times, no links)";
    else if (s.sync.algorithm == AllReduceAlgorithm::kRing &&
             s.sync.mode == CollectiveMode::kChunked)
      notes += " (chunked mode, alpha latency)";
    else if (collective_algorithm(s.sync.algorithm).nccl_latency != NcclLatencyUse::kNever)
      notes += s.sync.latency_model == LatencyModel::kNccl ? " (flow mode, NCCL latency model)"
                                                           : " (flow mode, alpha latency)";
    else
      notes += " (flow mode)";
    if (s.sync.fusion.enabled)
      notes += ", Horovod fusion (" + units::format_bytes(s.sync.fusion.threshold) +
               " buffers every " + units::format_duration(s.sync.fusion.cycle_time) + ")";
    else if (s.sync.schedule == CommSchedule::kPriority)
      notes += ", priority scheduling (ByteScheduler, " + units::format_bytes(s.sync.partition) +
               " partitions)";
    else if (s.sync.bucket_cap <= 0)
      notes += ", one all-reduce per tensor";
    if (uses_buffer_broadcast(s))
      notes += ", " + units::format_bytes(s.sync.buffer_broadcast) +
               " of buffers broadcast before every forward";
    if (s.sync.strategy == SyncStrategy::kLocalSgd)
      notes += ", weights averaged every " + std::to_string(s.sync.local_sgd_period) + " steps";
  }
  if (s.compute.mode == ComputeMode::kMeasured) notes += "; compute scaled to measured step time";
  return notes;
}

}  // namespace ddpsim
