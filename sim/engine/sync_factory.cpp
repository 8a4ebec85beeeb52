#include "sim/engine/sync_factory.h"

#include <cstdio>
#include <stdexcept>

#include "sim/cost/collective_formulas.h"
#include "sim/engine/allreduce_sync.h"
#include "sim/engine/ps_sync.h"
#include "sim/profile/profile_yaml.h"
#include "sim/util/input_error.h"

namespace ddpsim {
namespace {

// The measured table: given in code (sync.alpha_beta) or read from sync.alpha_beta_table.
AlphaBetaTable alpha_beta_table(const Scenario& s) {
  if (!s.sync.alpha_beta.empty()) return s.sync.alpha_beta;
  return load_alpha_beta_table(s.sync.alpha_beta_table);
}

bool uses_alpha_beta(const Scenario& s) {
  return s.cluster.total_gpus() > 1 &&
         (!s.sync.alpha_beta.empty() || !s.sync.alpha_beta_table.empty());
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
  switch (s.sync.algorithm) {
    case AllReduceAlgorithm::kRing:
      return make_ring_allreduce(transport, s.sync.mode, s.sync.channels);
    case AllReduceAlgorithm::kTree:
      return make_tree_allreduce(transport, s.sync.channels);
    case AllReduceAlgorithm::kHalvingDoubling:
      return make_halving_doubling_allreduce(transport);
    case AllReduceAlgorithm::kHierarchical:
      return make_hierarchical_allreduce(transport);
    case AllReduceAlgorithm::kAuto:
      return make_auto_allreduce(transport, s.sync.mode, s.sync.channels);
  }
  throw std::logic_error("unknown all-reduce algorithm");
}

std::unique_ptr<GradientSync> make_gradient_sync(RunContext* ctx) {
  const Scenario& s = *ctx->scenario;
  switch (s.sync.strategy) {
    case SyncStrategy::kAllReduce:
      return make_allreduce_sync(ctx, make_allreduce(s, ctx->transport.get()), 1);
    case SyncStrategy::kLocalSgd:
      return make_allreduce_sync(ctx, make_allreduce(s, ctx->transport.get()),
                                 s.sync.local_sgd_period);
    case SyncStrategy::kParameterServer:
      return make_ps_sync(ctx, ps_layout(s, *ctx->platform));
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
  } else {
    notes += std::string(" / ") + algorithm_name(s.sync.algorithm);
    if (uses_alpha_beta(s))
      notes += " (alpha-beta table " + s.sync.alpha_beta_table + ": measured times, no links)";
    else if (s.sync.algorithm == AllReduceAlgorithm::kRing)
      notes += s.sync.mode == CollectiveMode::kFlow ? " (flow mode)" : " (chunked mode)";
    else
      notes += " (flow mode)";
    if (s.sync.strategy == SyncStrategy::kLocalSgd)
      notes += ", weights averaged every " + std::to_string(s.sync.local_sgd_period) + " steps";
  }
  if (s.compute.mode == ComputeMode::kMeasured) notes += "; compute scaled to measured step time";
  return notes;
}

}  // namespace ddpsim
