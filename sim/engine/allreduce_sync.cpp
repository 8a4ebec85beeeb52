#include "sim/engine/allreduce_sync.h"

#include <simgrid/s4u.hpp>
#include <string>

namespace ddpsim {
namespace {

using simgrid::s4u::Semaphore;
using simgrid::s4u::SemaphorePtr;

double now() { return simgrid::s4u::Engine::get_clock(); }

class AllReduceSync : public GradientSync {
 public:
  AllReduceSync(RunContext* ctx, std::unique_ptr<AllReduce> allreduce, int period)
      : ctx_(ctx), allreduce_(std::move(allreduce)), period_(period) {
    const int p = ctx->scenario->cluster.total_gpus();
    const size_t buckets = ctx->plan->buckets.size();
    ready_.resize(p);
    done_.resize(p);
    busy_.assign(p, 0.0);
    bucket_time_.assign(buckets, 0.0);
    bucket_calls_.assign(buckets, 0);
    for (int r = 0; r < p; ++r) {
      ready_[r] = Semaphore::create(0);
      done_[r] = Semaphore::create(0);
      simgrid::s4u::Actor::create("comm" + std::to_string(r), ctx->platform->gpus[r],
                                  [this, r] { run(r); });
    }
  }

  bool syncs(int step) const { return (step + 1) % period_ == 0; }

  void bucket_ready(int rank, int step, int /*bucket*/) override {
    if (syncs(step)) ready_[rank]->release();
  }

  void wait_synchronised(int rank, int step) override {
    if (syncs(step)) done_[rank]->acquire();
  }

  int peer_step(int step) const override { return syncs(step) ? step : -1; }
  double comm_busy(int rank) const override { return busy_[rank]; }

  std::vector<BucketReport> bucket_reports() const override {
    std::vector<BucketReport> out;
    const auto& buckets = ctx_->plan->buckets;
    for (size_t b = 0; b < buckets.size(); ++b)
      out.push_back({static_cast<int>(b), static_cast<int>(buckets[b].tensors.size()),
                     buckets[b].bytes, allreduce_->algorithm_for(buckets[b].bytes),
                     bucket_calls_[b] ? bucket_time_[b] / bucket_calls_[b] : 0.0});
    return out;
  }

  void append_trace(std::vector<TraceEvent>* out) const override {
    out->insert(out->end(), trace_.begin(), trace_.end());
  }

 private:
  // One rank's communication stream: buckets are reduced in order, one at a time.
  void run(int rank) {
    const auto& buckets = ctx_->plan->buckets;
    const uint64_t per_step = buckets.size() + 1;
    for (int step = 0; step < ctx_->steps(); ++step) {
      if (!syncs(step)) continue;
      for (size_t b = 0; b < buckets.size(); ++b) {
        ready_[rank]->acquire();
        const double start = now();
        if (ctx_->interference) ctx_->interference->set_communicating(rank, true);
        allreduce_->run(rank, static_cast<uint64_t>(step) * per_step + b, buckets[b].bytes);
        if (ctx_->interference) ctx_->interference->set_communicating(rank, false);
        const double elapsed = now() - start;
        if (ctx_->measured(step)) {
          busy_[rank] += elapsed;
          if (rank == 0) {
            bucket_time_[b] += elapsed;
            ++bucket_calls_[b];
          }
        }
        if (ctx_->traced(rank, step))
          push_step_event(trace_, {rank, "comm", "all-reduce bucket " + std::to_string(b), start, now()}, step);
      }
      done_[rank]->release();
    }
  }

  RunContext* ctx_;
  std::unique_ptr<AllReduce> allreduce_;
  int period_;
  std::vector<SemaphorePtr> ready_, done_;
  std::vector<double> busy_, bucket_time_;
  std::vector<int> bucket_calls_;
  std::vector<TraceEvent> trace_;
};

}  // namespace

std::unique_ptr<GradientSync> make_allreduce_sync(RunContext* ctx,
                                                  std::unique_ptr<AllReduce> allreduce,
                                                  int period) {
  return std::make_unique<AllReduceSync>(ctx, std::move(allreduce), period);
}

}  // namespace ddpsim
