#include "sim/engine/sharded_worker.h"

#include <string>
#include <vector>

#include "sim/cost/shard_units.h"
#include "sim/cost/stragglers.h"
#include "sim/engine/worker_steps.h"

namespace ddpsim {
namespace {

using Done = ShardedSync::Done;
using Op = ShardedSync::Op;

// Consecutive layers of one unit, in forward order.
struct Segment {
  int unit = 0;
  double forward = 0, backward = 0;
  bool first_of_unit = false, last_of_unit = false;  // in forward order
};

std::vector<Segment> segments(const IterationPlan& plan) {
  std::vector<Segment> out;
  const auto& layers = plan.compute.layers;
  for (size_t l = 0; l < layers.size(); ++l) {
    const int u = plan.unit_of_layer[l];
    if (out.empty() || out.back().unit != u) out.push_back({u, 0, 0, false, false});
    out.back().forward += layers[l].forward;
    out.back().backward += layers[l].backward;
  }
  std::vector<bool> seen(plan.units.size(), false);
  for (Segment& s : out) {
    s.first_of_unit = !seen[s.unit];
    seen[s.unit] = true;
  }
  seen.assign(plan.units.size(), false);
  for (auto it = out.rbegin(); it != out.rend(); ++it) {
    it->last_of_unit = !seen[it->unit];
    seen[it->unit] = true;
  }
  return out;
}

class ShardedWorker {
 public:
  ShardedWorker(RunContext* ctx, ShardedSync* sync, int rank)
      : ctx_(ctx),
        s_(*ctx->scenario),
        plan_(*ctx->plan),
        sync_(sync),
        rank_(rank),
        sharding_(s_.sync.sharding),
        per_unit_(sharding_.strategy == Sharding::kZero3 ||
                  sharding_.strategy == Sharding::kHybrid),
        blocking_(!s_.sync.overlap),
        width_(gathered_param_bytes(s_.training.precision)),
        segments_(segments(plan_)) {}

  void run() {
    WorkerStats& stats = ctx_->workers[rank_];
    stats.step_end.assign(ctx_->steps(), 0.0);
    stats.grads_ready.assign(ctx_->steps(), -1.0);
    for (int step = 0; step < ctx_->steps(); ++step) {
      step_ = step;
      slow_ = straggler_factor(s_.stragglers, s_.seed, rank_, step);
      reductions_.clear();
      const int micro_batches = s_.training.gradient_accumulation;
      for (int micro = 0; micro < micro_batches; ++micro) {
        wait_for_batch(ctx_, rank_, step_, micro);
        const bool last = micro == micro_batches - 1;
        if (per_unit_) {
          unit_forward();
          unit_backward(last);
        } else {
          compute(ctx_, rank_, step, plan_.compute.forward * slow_, &sum().forward, "forward");
          bucket_backward(last);
        }
      }
      const double start = now();
      // A FIFO finishes its calls in the order they were issued (reduce-scatters are done in
      // that order on the FIFO across nodes too): the last one done means all are.
      if (!reductions_.empty()) ShardedSync::wait(reductions_.back());
      book_wait(ctx_, rank_, step, step, start, "wait for gradients (reduce-scatter)");
      compute(ctx_, rank_, step, plan_.compute.optimizer * slow_, &sum().optimizer,
              "optimizer (shard)");
      if (!per_unit_) gather_updated_parameters();
      stats.step_end[step] = now();
      stats.steps_done = step + 1;
      stats.sum_done = stats.sum;
      ctx_->step_finished(rank_, step);
      // A steady state: every other actor (the FIFOs too) is gone.
      if (ctx_->stopped_after >= 0) return;
    }
    sync_->issue(rank_, Op::kStop, 0, step_, -1, "");
  }

 private:
  Breakdown& sum() { return ctx_->workers[rank_].sum; }

  double gathered_bytes(int unit) const {
    const ShardUnit& u = plan_.units[unit];
    return static_cast<double>(u.params + u.frozen_params) * width_;
  }
  double gradient_bytes(int unit) const {
    return static_cast<double>(plan_.units[unit].params) * s_.sync.gradient_bytes;
  }

  // Waiting for parameters is exposed communication (no peer is slower: every rank gathers).
  void wait_for(const Done& done, const std::string& what) {
    const double start = now();
    ShardedSync::wait(done);
    book_wait(ctx_, rank_, step_, -1, start, "wait for " + what);
  }

  Done gather(int unit, const std::string& when, simgrid::s4u::SemaphorePtr gate = nullptr) {
    return sync_->issue(rank_, Op::kAllGather, gathered_bytes(unit), step_, unit,
                        "all-gather " + plan_.units[unit].name + " (" + when + ")", gate);
  }

  void unit_forward() {
    if (blocking_) {
      for (const Segment& seg : segments_) {
        const std::string& name = plan_.units[seg.unit].name;
        if (seg.first_of_unit) wait_for(gather(seg.unit, "forward"), "parameters of " + name);
        compute(ctx_, rank_, step_, seg.forward * slow_, &sum().forward, "forward " + name);
      }
      return;
    }
    const int units = static_cast<int>(plan_.units.size());
    std::vector<Done> gathered(units);
    std::vector<simgrid::s4u::SemaphorePtr> freed(units);
    // FSDP's rate limiter: at most two (three with forward prefetch) units unsharded at once.
    const int distance = sharding_.forward_prefetch ? 3 : 2;
    gathered[0] = gather(0, "forward");
    for (int u = 1; u < units; ++u) {
      freed[u] = simgrid::s4u::Semaphore::create(0);
      const int before = u - distance;
      gathered[u] = gather(u, "forward",
                           sharding_.limit_all_gathers && before >= 1 ? freed[before] : nullptr);
    }
    for (const Segment& seg : segments_) {
      const std::string& name = plan_.units[seg.unit].name;
      if (seg.first_of_unit) wait_for(gathered[seg.unit], "parameters of " + name);
      compute(ctx_, rank_, step_, seg.forward * slow_, &sum().forward, "forward " + name);
      if (seg.unit != 0 && seg.last_of_unit) freed[seg.unit]->release();
    }
  }

  void unit_backward(bool last_micro) {
    const int units = static_cast<int>(plan_.units.size());
    std::vector<Done> gathered(units);
    // Units other than the root in the order backward reaches them.
    std::vector<int> order;
    for (auto it = segments_.rbegin(); it != segments_.rend(); ++it)
      if (it->unit != 0 && it->last_of_unit) order.push_back(it->unit);
    size_t next = 0;
    auto issue_next = [&](const char* when) {
      if (next < order.size()) {
        const int u = order[next++];
        gathered[u] = gather(u, when);
      }
    };
    const BackwardPrefetch prefetch =
        blocking_ ? BackwardPrefetch::kNone : sharding_.backward_prefetch;
    if (prefetch == BackwardPrefetch::kPre) issue_next("backward prefetch");
    for (auto it = segments_.rbegin(); it != segments_.rend(); ++it) {
      const Segment& seg = *it;
      const std::string& name = plan_.units[seg.unit].name;
      if (seg.unit != 0 && seg.last_of_unit) {
        while (!gathered[seg.unit]) issue_next("backward");
        if (prefetch == BackwardPrefetch::kPre) issue_next("backward prefetch");
        wait_for(gathered[seg.unit], "parameters of " + name);
      }
      compute(ctx_, rank_, step_, seg.backward * slow_, &sum().backward, "backward " + name);
      if (seg.unit != 0 && seg.first_of_unit) {
        if (prefetch == BackwardPrefetch::kPost) issue_next("backward prefetch");
        reduce(seg.unit);
      }
    }
    if (last_micro) report_grads_ready(ctx_, rank_, step_);
    reduce(0);
  }

  void reduce(int unit) {
    if (plan_.units[unit].params == 0) return;
    reduce_bytes(gradient_bytes(unit), unit, "reduce-scatter " + plan_.units[unit].name);
  }

  void reduce_bytes(double bytes, int index, const std::string& label) {
    const Done done = sync_->issue(rank_, Op::kReduceScatter, bytes, step_, index, label);
    if (blocking_)
      wait_for(done, "gradients (reduce-scatter)");
    else
      reductions_.push_back(done);
  }

  // zero1 / zero2: DDP's buckets, reduce-scattered as backward fills them.
  void bucket_backward(bool last_micro) {
    const bool reduces = sharding_.strategy == Sharding::kZero2 || last_micro;
    if (!reduces) {
      compute(ctx_, rank_, step_, plan_.compute.backward * slow_, &sum().backward, "backward");
      return;
    }
    const auto& buckets = plan_.buckets;
    for (size_t b = 0; b < buckets.size(); ++b) {
      compute(ctx_, rank_, step_, plan_.backward_segments[b] * slow_, &sum().backward,
              "backward to bucket " + std::to_string(b));
      reduce_bytes(buckets[b].bytes, static_cast<int>(b),
                   "reduce-scatter bucket " + std::to_string(b));
    }
    compute(ctx_, rank_, step_, plan_.backward_segments[buckets.size()] * slow_, &sum().backward,
            "backward tail");
    if (last_micro) report_grads_ready(ctx_, rank_, step_);
  }

  // zero1 / zero2: every GPU updated its shard; the next forward needs all of them.
  void gather_updated_parameters() {
    std::vector<Done> gathers;
    for (size_t b = 0; b < plan_.buckets.size(); ++b)
      gathers.push_back(sync_->issue(
          rank_, Op::kAllGather, plan_.buckets[b].bytes / s_.sync.gradient_bytes * width_, step_,
          static_cast<int>(b), "all-gather parameters " + std::to_string(b)));
    const double start = now();
    if (!gathers.empty()) ShardedSync::wait(gathers.back());  // done in issue order (FIFO)
    book_wait(ctx_, rank_, step_, -1, start, "wait for updated parameters (all-gather)");
  }

  RunContext* ctx_;
  const Scenario& s_;
  const IterationPlan& plan_;
  ShardedSync* sync_;
  int rank_;
  const ShardingSpec& sharding_;
  bool per_unit_;
  bool blocking_;  // sync.overlap false: every collective is waited for as soon as it is issued
  int width_;
  std::vector<Segment> segments_;
  int step_ = 0;
  double slow_ = 1;
  std::vector<Done> reductions_;
};

}  // namespace

void run_sharded_worker(RunContext* ctx, ShardedSync* sync, int rank) {
  ShardedWorker(ctx, sync, rank).run();
}

}  // namespace ddpsim
