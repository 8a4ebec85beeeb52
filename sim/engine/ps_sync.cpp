// Parameter-server synchronisation (ps_sync.h): the engine's construction (its state and actors),
// what the worker loop asks of it (GradientSync: units ready, waiting for the step or a layer) and
// what it reports (buckets, trace, staleness, async throughput); make_ps_sync. The engine's roles
// live beside it (ps_engine.h lists them).
#include <stdexcept>

#include "sim/cost/symmetry.h"
#include "sim/engine/ps_engine.h"

namespace ddpsim {
namespace ps_detail {

PsSync::PsSync(RunContext* ctx, std::vector<PsServerPlace> servers, int mixed_colocated)
    : ctx_(ctx),
      s_(*ctx->scenario),
      pf_(*ctx->platform),
      servers_(std::move(servers)),
      p_(static_cast<int>(pf_.gpus.size())),
      g_(pf_.spec.gpus_per_node),
      k_(static_cast<int>(servers_.size())),
      units_(static_cast<int>(ctx->plan->buckets.size())),
      steps_(ctx->steps()),
      staleness_bound_(s_.sync.ps.mode == PsMode::kAsync ? s_.sync.ps.staleness : 0),
      priority_(s_.sync.schedule == CommSchedule::kPriority),
      forward_pulls_(s_.sync.ps.pull == PsPull::kForward) {
  // Node lanes (ps_engine.h) where every flow crossing a NIC is a parameter server's, grouped
  // by node (ps_node_lanes: asynchronous servers pace each GPU on its own, a second NIC or a
  // store read over the network breaks the grouping). Forward pulls go out when the node's last
  // GPU asks for them (its all-gather waits for that GPU's pulls anyway).
  lanes_ = ctx->node_lanes;
  ctx->node_lanes_ran = lanes_;
  static int instances = 0;
  prefix_ = "ps" + std::to_string(instances++) + ":";
  cut_partitions(mixed_colocated);
  // Under the symmetric scope (sim/cost/symmetry.h) the p_ simulated GPUs stand for the
  // cluster's: each summed push here stands for (P - g) / (p_ - g) of the cluster's (the first
  // g pushes of a partition are free, below).
  const int logical_p = pf_.logical_nodes * g_;
  sum_fold_ = logical_p > p_ ? static_cast<double>(logical_p - g_) / (p_ - g_) : 1.0;
  const ParameterServerSpec& ps = s_.sync.ps;
  const double threads = ps.server_threads;
  sum_seconds_per_byte_ =
      ps.server_memory_bandwidth > 0 ? threads / ps.server_memory_bandwidth : 0.0;
  // The update's cost and the credit are resolved (effective_scenario.h); credit 0: unlimited.
  update_seconds_per_byte_ =
      ps.update == PsUpdate::kServer
          ? ps.update_flops_per_param / s_.sync.gradient_bytes / kServerUpdateFlopsPerSecond
          : 0.0;
  credit_ = s_.sync.credit;

  ranks_.resize(p_);
  for (int r = 0; r < p_; ++r) {
    RankState& rs = ranks_[r];
    rs.done = sg4::Semaphore::create(0);
    rs.mutex = sg4::Mutex::create();
    rs.changed = sg4::ConditionVariable::create();
    rs.back.assign(steps_, std::vector<char>(units_, 0));
    rs.units_back.assign(steps_, 0);
    rs.pulled.assign(steps_, std::vector<int>(units_, 0));
    rs.requested.assign(steps_, 0);
    rs.blocked.resize(steps_);
    rs.staleness.assign(steps_, 0);
    rs.started.assign(units_, 0.0);
    rs.spans.assign(units_, {0.0, 0.0});
    rs.pushes.resize(k_);
  }
  state_.resize(k_);
  for (int k = 0; k < k_; ++k) {
    ServerState& st = state_[k];
    st.pulls.resize(p_);
    st.threads.resize(ps.server_threads);
  }
  server_steps_.assign(steps_, {});
  for (int t = 0; t < steps_; ++t) {
    server_steps_[t].arrived.assign(parts_.size(), 0);
    server_steps_[t].summed.assign(parts_.size(), 0);
  }
  version_.assign(parts_.size(), -1);
  for (int k = 0; k < k_; ++k)
    for (int th = 0; th < ps.server_threads; ++th) {
      Thread& thread = state_[k].threads[th];
      thread.jobs = sg4::Semaphore::create(0);
      long expected = 0;
      for (size_t x = 0; x < parts_.size(); ++x)
        if (parts_[x].server == k && parts_[x].thread == th) expected += steps_ * (p_ + 1L);
      if (expected == 0) continue;
      sg4::Actor::create("ps-thread" + std::to_string(k) + "." + std::to_string(th),
                         servers_[k].host, [this, k, th, expected] { serve(k, th, expected); });
    }
  if (g_ > 1) {
    reduce_rings_ = std::make_unique<GroupRings>(ctx->transport.get(), GroupRings::nodes(pf_));
    gather_rings_ = std::make_unique<GroupRings>(ctx->transport.get(), GroupRings::nodes(pf_));
    nodes_.resize(pf_.spec.nodes);
    for (NodeState& node : nodes_) {
      node.requests.assign(steps_, 0);
      node.ready.assign(steps_, std::vector<int>(units_, 0));
      node.back.assign(steps_, std::vector<int>(units_, 0));
    }
    for (int r = 0; r < p_; ++r) {
      ranks_[r].reduce_wake = sg4::Semaphore::create(0);
      ranks_[r].gather_wake = sg4::Semaphore::create(0);
      sg4::Actor::create("ps-reduce" + std::to_string(r), pf_.gpus[r], [this, r] { reduce(r); });
      sg4::Actor::create("ps-gather" + std::to_string(r), pf_.gpus[r], [this, r] { gather(r); });
    }
  }
  busy_.assign(p_, 0.0);
  unit_time_.assign(units_, 0.0);
  unit_calls_.assign(units_, 0);
}

void PsSync::bucket_ready(int rank, int step, int unit) {
  ranks_[rank].started[unit] = now();
  if (g_ == 1) {
    enqueue_unit(rank, step, unit);
    return;
  }
  NodeState& node = nodes_[pf_.node_of_rank(rank)];
  if (++node.ready[step][unit] < g_) return;
  node.reducible.push_back({step, unit});
  wake_node(rank, &RankState::reduce_wake);
}

void PsSync::wait_synchronised(int rank, int step) {
  if (gates_forward()) {
    if (!forward_pulls_) return;
    if (!lanes_)
      request_pulls(rank, step);
    else if (++nodes_[pf_.node_of_rank(rank)].requests[step] == g_)
      request_pulls(rank - pf_.local_of_rank(rank), step);  // the node's first GPU pulls for it
    return;
  }
  if (units_ > 0) ranks_[rank].done->acquire();
}

void PsSync::wait_layer(int rank, int step, int layer) {
  RankState& rs = ranks_[rank];
  const std::vector<int>& need = ctx_->plan->layer_buckets[layer];
  std::unique_lock<sg4::Mutex> lock(*rs.mutex);
  for (int u : need)
    while (!rs.back[step][u]) rs.changed->wait(lock);
}

std::vector<BucketReport> PsSync::bucket_reports() const {
  const std::string name =
      "ps (" + std::to_string(k_) + " servers, " +
      (s_.sync.ps.mode == PsMode::kAsync ? "async, staleness " + std::to_string(staleness_bound_)
                                         : std::string("sync")) +
      ", " + std::to_string(parts_.size()) + " partitions)";
  std::vector<BucketReport> out;
  const auto& buckets = ctx_->plan->buckets;
  for (int u = 0; u < units_; ++u)
    out.push_back({u, static_cast<int>(buckets[u].tensors.size()), buckets[u].bytes, name,
                   unit_calls_[u] ? unit_time_[u] / unit_calls_[u] : 0.0});
  return out;
}

void PsSync::append_trace(std::vector<TraceEvent>* out) const {
  out->insert(out->end(), trace_.begin(), trace_.end());
}

void PsSync::report(SimulationResult* result) const {
  const int steps = ctx_->steps(), warmup = ctx_->warmup();
  double sum = 0;
  int count = 0, most = 0;
  for (int r = 0; r < p_; ++r)
    for (int t = warmup; t < std::min(steps, ctx_->workers[r].steps_done); ++t) {
      sum += ranks_[r].staleness[t];
      most = std::max(most, ranks_[r].staleness[t]);
      ++count;
    }
  result->staleness_max = most;
  result->staleness_mean = count ? sum / count : 0;
  if (s_.sync.ps.mode != PsMode::kAsync || result->partial) return;
  // No global step: every worker trains at its own pace, throughput is the sum of their rates.
  const TrainingSpec& tr = s_.training;
  double rate = 0;
  for (const WorkerStats& w : ctx_->workers) {
    const double window = w.step_end[steps - 1] - (warmup > 0 ? w.step_end[warmup - 1] : 0.0);
    if (window > 0)
      rate += static_cast<double>(steps - warmup) * tr.batch_per_gpu * tr.gradient_accumulation /
              window;
  }
  if (rate <= 0) return;
  result->samples_per_second = rate;
  result->iteration_time = result->global_batch / rate;
  result->comm_share = result->comm_time / result->iteration_time;
  result->exposed_comm_share = result->breakdown.exposed_comm / result->iteration_time;
  result->straggler_share = result->breakdown.straggler_wait / result->iteration_time;
}

}  // namespace ps_detail

std::unique_ptr<GradientSync> make_ps_sync(RunContext* ctx, std::vector<PsServerPlace> servers,
                                           int mixed_colocated) {
  return std::make_unique<ps_detail::PsSync>(ctx, std::move(servers), mixed_colocated);
}

}  // namespace ddpsim
