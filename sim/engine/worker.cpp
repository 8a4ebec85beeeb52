#include "sim/engine/worker.h"

#include <simgrid/s4u.hpp>
#include <string>

#include "sim/cost/stragglers.h"

namespace ddpsim {
namespace {

namespace this_actor = simgrid::s4u::this_actor;

double now() { return simgrid::s4u::Engine::get_clock(); }

// Runs `seconds` of compute (longer where it overlaps this GPU's communication and an overlap
// slowdown applies), adding the time taken to *bucket and to the trace when traced.
void compute(RunContext* ctx, int rank, int step, double seconds, double* bucket,
             const std::string& name) {
  const double start = now();
  double taken = seconds;
  if (seconds > 0) {
    if (ctx->interference)
      taken = ctx->interference->compute(rank, seconds);
    else
      this_actor::sleep_for(seconds);
  }
  if (ctx->measured(step)) *bucket += taken;
  if (ctx->traced(rank, step) && seconds > 0)
    ctx->trace.push_back({rank, "compute", name, start, now()});
}

}  // namespace

void run_worker(RunContext* ctx, int rank) {
  const Scenario& s = *ctx->scenario;
  const IterationPlan& plan = *ctx->plan;
  WorkerStats& stats = ctx->workers[rank];
  const int micro_batches = s.training.gradient_accumulation;
  const int buckets = static_cast<int>(plan.buckets.size());
  stats.step_end.assign(ctx->steps(), 0.0);

  for (int step = 0; step < ctx->steps(); ++step) {
    const double slow = straggler_factor(s.stragglers, s.seed, rank, step);
    Breakdown& sum = stats.sum;
    for (int micro = 0; micro < micro_batches; ++micro) {
      const double wait_start = now();
      ctx->feed->wait_batch(rank, step, micro);
      if (ctx->measured(step)) sum.data_wait += now() - wait_start;
      if (ctx->traced(rank, step) && now() > wait_start)
        ctx->trace.push_back({rank, "compute", "data wait", wait_start, now()});

      compute(ctx, rank, step, plan.compute.forward * slow, &sum.forward, "forward");
      const bool last = micro == micro_batches - 1;
      if (!last) {
        // DDP no_sync(): gradients accumulate locally, nothing is reduced.
        compute(ctx, rank, step, plan.compute.backward * slow, &sum.backward, "backward");
        continue;
      }
      for (int b = 0; b < buckets; ++b) {
        compute(ctx, rank, step, plan.backward_segments[b] * slow, &sum.backward,
                "backward to bucket " + std::to_string(b));
        if (s.sync.overlap) ctx->sync->bucket_ready(rank, step, b);
      }
      compute(ctx, rank, step, plan.backward_segments[buckets] * slow, &sum.backward,
              "backward tail");
      if (!s.sync.overlap)
        for (int b = 0; b < buckets; ++b) ctx->sync->bucket_ready(rank, step, b);
    }
    const double sync_start = now();
    ctx->sync->wait_synchronised(rank, step);
    if (ctx->measured(step)) sum.exposed_comm += now() - sync_start;
    if (ctx->traced(rank, step) && now() > sync_start)
      ctx->trace.push_back({rank, "compute", "wait for gradients", sync_start, now()});
    if (ctx->sync->worker_runs_optimizer())
      compute(ctx, rank, step, plan.compute.optimizer * slow, &sum.optimizer, "optimizer");
    stats.step_end[step] = now();
    stats.steps_done = step + 1;
    stats.sum_done = sum;
  }
}

}  // namespace ddpsim
