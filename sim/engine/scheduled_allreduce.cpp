#include "sim/engine/scheduled_allreduce.h"

#include <algorithm>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "sim/cost/comm_schedule.h"
#include "sim/cost/ps_partition.h"

namespace ddpsim {
namespace {

namespace sg4 = simgrid::s4u;

double now() { return sg4::Engine::get_clock(); }

enum class Scheduler { kFusion, kPriority };

class ScheduledAllReduce : public GradientSync {
 public:
  ScheduledAllReduce(RunContext* ctx, std::unique_ptr<AllReduce> allreduce, int period,
                     Scheduler scheduler)
      : ctx_(ctx),
        allreduce_(std::move(allreduce)),
        period_(period),
        scheduler_(scheduler),
        p_(ctx->scenario->cluster.total_gpus()),
        units_(static_cast<int>(ctx->plan->buckets.size())),
        steps_(ctx->steps()) {
    const SyncSpec& sync = ctx->scenario->sync;
    const auto& buckets = ctx->plan->buckets;
    unit_pieces_.resize(units_);
    for (int u = 0; u < units_; ++u) {
      const std::vector<double> sizes = scheduler_ == Scheduler::kPriority
                                            ? partition_sizes(buckets[u].bytes, sync.partition)
                                            : std::vector<double>{buckets[u].bytes};
      for (double bytes : sizes) {
        unit_pieces_[u].push_back(static_cast<int>(pieces_.size()));
        pieces_.push_back({u, bytes});
      }
    }
    announced_.assign(steps_, std::vector<int>(units_, 0));
    for (int t = 0; t < steps_; ++t)
      if (syncs(t)) total_pieces_ += static_cast<long>(pieces_.size());
    ranks_.resize(p_);
    for (int r = 0; r < p_; ++r) {
      Rank& rank = ranks_[r];
      rank.wake = sg4::Semaphore::create(0);
      rank.done = sg4::Semaphore::create(0);
      rank.mutex = sg4::Mutex::create();
      rank.changed = sg4::ConditionVariable::create();
      rank.left.assign(steps_, std::vector<int>(units_, 0));
      for (int t = 0; t < steps_; ++t)
        for (int u = 0; u < units_; ++u) rank.left[t][u] = static_cast<int>(unit_pieces_[u].size());
      rank.units_done.assign(steps_, 0);
      sg4::Actor::create("comm" + std::to_string(r), ctx->platform->gpus[r],
                         [this, r] { stream(r); });
    }
    busy_.assign(p_, 0.0);
    if (scheduler_ == Scheduler::kFusion) {
      const FusionSpec& f = sync.fusion;
      coordination_ = f.coordination;  // resolved where not stated (effective_scenario.h)
      cycle_period_ = std::max(f.cycle_time, coordination_);
      threshold_ = f.threshold;
      cycle_wake_ = sg4::Semaphore::create(0);
      sg4::Actor::create("horovod-cycle", ctx->platform->gpus[0], [this] { cycles(); });
    }
  }

  bool syncs(int step) const { return (step + 1) % period_ == 0; }

  void bucket_ready(int, int step, int unit) override {
    if (!syncs(step) || ++announced_[step][unit] < p_) return;
    // Every rank has it: the scheduler may take it.
    if (scheduler_ == Scheduler::kFusion) {
      pending_.push_back({step, unit});
      cycle_wake_->release();
    } else {
      for (int x : unit_pieces_[unit]) available_.push_back({step, x});
      wake_all();
    }
  }

  void wait_synchronised(int rank, int step) override {
    if (gates_forward() || !syncs(step) || units_ == 0) return;
    ranks_[rank].done->acquire();
  }

  bool gates_forward() const override { return scheduler_ == Scheduler::kPriority; }

  void wait_layer(int rank, int step, int layer) override {
    if (!syncs(step)) return;
    Rank& r = ranks_[rank];
    std::unique_lock<sg4::Mutex> lock(*r.mutex);
    for (int u : ctx_->plan->layer_buckets[layer])
      while (r.left[step][u] > 0) r.changed->wait(lock);
  }

  int peer_step(int step) const override { return syncs(step) ? step : -1; }
  double comm_busy(int rank) const override { return busy_[rank]; }

  std::vector<BucketReport> bucket_reports() const override {
    std::vector<BucketReport> out;
    for (const Report& rep : reports_)
      if (rep.step == last_reported_step_) out.push_back(rep.report);
    return out;
  }

  void append_trace(std::vector<TraceEvent>* out) const override {
    out->insert(out->end(), trace_.begin(), trace_.end());
  }

 private:
  struct Piece {
    int unit = 0;
    double bytes = 0;
  };
  struct Collective {
    int step = 0;
    std::vector<int> pieces;
    double bytes = 0;
  };
  struct Rank {
    sg4::SemaphorePtr wake, done;
    sg4::MutexPtr mutex;
    sg4::ConditionVariablePtr changed;
    std::vector<std::vector<int>> left;  // [step][unit]: pieces not yet reduced
    std::vector<int> units_done;         // [step]
    size_t cursor = 0;
  };
  struct Report {
    int step = 0;
    BucketReport report;
  };

  void wake_all() {
    for (Rank& r : ranks_) r.wake->release();
  }

  // Horovod's background loop wakes every cycle_period whatever training does, so a step's
  // first gradient meets it at an arbitrary phase; the mean of that phase is used: the first cycle
  // of a step comes half a period after its first tensor is ready everywhere, the next ones every
  // period after it. (A grid fixed at time 0 would make predictions hinge on where the step lands
  // against it: a jitter of microseconds could move a tensor a whole cycle.)
  void cycles() {
    long taken = 0;
    double last_start = 0;
    int grid_step = -1;
    const long total_units = total_pieces_;  // one piece per tensor under fusion
    while (taken < total_units) {
      while (pending_.empty()) cycle_wake_->acquire();
      double start;
      if (pending_.front().first != grid_step) {
        grid_step = pending_.front().first;
        start = now() + cycle_period_ / 2;
      } else {
        start = next_cycle_start(std::max(now(), last_start + cycle_period_), last_start,
                                 cycle_period_);
      }
      if (start > now()) sg4::this_actor::sleep_for(start - now());
      last_start = start;
      std::vector<std::pair<int, int>> take;
      take.swap(pending_);
      if (coordination_ > 0) sg4::this_actor::sleep_for(coordination_);
      const auto& buckets = ctx_->plan->buckets;
      std::vector<double> bytes;
      for (const auto& [step, unit] : take) bytes.push_back(buckets[unit].bytes);
      for (const std::vector<int>& group : fuse_tensors(bytes, threshold_)) {
        Collective c;
        c.step = take[group.front()].first;
        for (int i : group) {
          c.pieces.push_back(unit_pieces_[take[i].second].front());
          c.bytes += bytes[i];
        }
        sequence_.push_back(c);
      }
      taken += static_cast<long>(take.size());
      wake_all();
    }
  }

  // ByteScheduler: the first free stream picks, for every rank, the ready piece of the lowest
  // layer (earlier steps first).
  void pick_next() {
    const auto& buckets = ctx_->plan->buckets;
    auto best = available_.begin();
    for (auto it = available_.begin(); it != available_.end(); ++it) {
      if (it->first != best->first) {
        if (it->first < best->first) best = it;
        continue;
      }
      const int ua = pieces_[it->second].unit, ub = pieces_[best->second].unit;
      if (before_in_priority(buckets[ua].ready_layer, it->second, buckets[ub].ready_layer,
                             best->second))
        best = it;
    }
    sequence_.push_back({best->first, {best->second}, pieces_[best->second].bytes});
    available_.erase(best);
  }

  // One rank's communication stream: the shared sequence, in order.
  void stream(int rank) {
    Rank& r = ranks_[rank];
    for (long reduced = 0; reduced < total_pieces_;) {
      while (r.cursor >= sequence_.size() &&
             (scheduler_ == Scheduler::kFusion || available_.empty()))
        r.wake->acquire();
      if (r.cursor >= sequence_.size()) pick_next();
      const size_t index = r.cursor++;
      const Collective c = sequence_[index];
      const double start = now();
      if (ctx_->interference) ctx_->interference->set_communicating(rank, true);
      allreduce_->run(rank, index, c.bytes);
      if (ctx_->interference) ctx_->interference->set_communicating(rank, false);
      record(rank, c, start);
      reduced += static_cast<long>(c.pieces.size());
      for (int x : c.pieces) piece_done(rank, c.step, pieces_[x].unit);
    }
  }

  void record(int rank, const Collective& c, double start) {
    const double elapsed = now() - start;
    if (ctx_->measured(c.step)) busy_[rank] += elapsed;
    std::string what =
        c.pieces.size() == 1 ? "tensor" : std::to_string(c.pieces.size()) + " tensors";
    if (ctx_->traced(rank, c.step))
      push_step_event(trace_, {rank, "comm", "all-reduce " + what, start, now()}, c.step);
    if (rank != 0 || !ctx_->measured(c.step)) return;
    last_reported_step_ = c.step;
    int index = 0;
    for (const Report& rep : reports_) index += rep.step == c.step;
    reports_.push_back({c.step,
                        {index, static_cast<int>(c.pieces.size()), c.bytes,
                         allreduce_->algorithm_for(c.bytes), elapsed}});
  }

  void piece_done(int rank, int step, int unit) {
    Rank& r = ranks_[rank];
    {
      std::unique_lock<sg4::Mutex> lock(*r.mutex);
      if (--r.left[step][unit] > 0) return;
      r.changed->notify_all();
    }
    if (++r.units_done[step] == units_) r.done->release();
  }

  RunContext* ctx_;
  std::unique_ptr<AllReduce> allreduce_;
  int period_;
  Scheduler scheduler_;
  int p_, units_, steps_;
  std::vector<Piece> pieces_;
  std::vector<std::vector<int>> unit_pieces_;
  std::vector<std::vector<int>> announced_;     // [step][unit]: ranks that have it ready
  std::vector<std::pair<int, int>> pending_;    // fusion: (step, unit) ready everywhere
  std::vector<std::pair<int, int>> available_;  // priority: (step, piece) ready everywhere
  std::vector<Collective> sequence_;
  long total_pieces_ = 0;
  std::vector<Rank> ranks_;
  double coordination_ = 0, cycle_period_ = 0, threshold_ = 0;
  sg4::SemaphorePtr cycle_wake_;
  std::vector<double> busy_;
  std::vector<Report> reports_;
  int last_reported_step_ = -1;
  std::vector<TraceEvent> trace_;
};

}  // namespace

std::unique_ptr<GradientSync> make_fusion_sync(RunContext* ctx,
                                               std::unique_ptr<AllReduce> allreduce, int period) {
  return std::make_unique<ScheduledAllReduce>(ctx, std::move(allreduce), period,
                                              Scheduler::kFusion);
}

std::unique_ptr<GradientSync> make_priority_sync(RunContext* ctx,
                                                 std::unique_ptr<AllReduce> allreduce, int period) {
  return std::make_unique<ScheduledAllReduce>(ctx, std::move(allreduce), period,
                                              Scheduler::kPriority);
}

}  // namespace ddpsim
