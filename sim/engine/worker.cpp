#include "sim/engine/worker.h"

#include <simgrid/s4u.hpp>
#include <string>

#include "sim/cost/stragglers.h"
#include "sim/engine/worker_steps.h"

namespace ddpsim {
void run_worker(RunContext* ctx, int rank) {
  const Scenario& s = *ctx->scenario;
  const IterationPlan& plan = *ctx->plan;
  GradientSync& sync = *ctx->sync;
  WorkerStats& stats = ctx->workers[rank];
  const int micro_batches = s.training.gradient_accumulation;
  const int buckets = static_cast<int>(plan.buckets.size());
  const bool gated = sync.gates_forward();
  stats.step_end.assign(ctx->steps(), 0.0);
  stats.grads_ready.assign(ctx->steps(), -1.0);

  for (int step = 0; step < ctx->steps(); ++step) {
    const double slow = straggler_factor(s.stragglers, s.seed, rank, step);
    Breakdown& sum = stats.sum;
    for (int micro = 0; micro < micro_batches; ++micro) {
      wait_for_batch(ctx, rank, step, micro);

      if (ctx->buffer_broadcast && micro == 0) {
        // DDP's forward starts by broadcasting rank 0's buffers (batch-norm statistics); every
        // rank waits for it, so all of it is exposed communication. Tags far above the
        // gradient buckets' keep the two collectives apart.
        const double start = now();
        ctx->buffer_broadcast->run(rank, (uint64_t{1} << 40) + static_cast<uint64_t>(step),
                                   s.sync.buffer_broadcast);
        book_wait(ctx, rank, step, -1, start, "buffer broadcast");
      }
      if (gated && micro == 0 && step > 0) {
        // Each layer waits only for its own parameters from the previous step (and applies its
        // part of the optimizer step when the worker runs it), so pulls overlap this forward.
        for (size_t l = 0; l < plan.compute.layers.size(); ++l) {
          const double start = now();
          sync.wait_layer(rank, step - 1, static_cast<int>(l));
          book_wait(ctx, rank, step, sync.peer_step(step - 1), start, "wait for parameters");
          if (sync.worker_runs_optimizer())
            compute(ctx, rank, step, plan.compute.optimizer * plan.optimizer_share[l] * slow,
                    &sum.optimizer, "optimizer, layer " + std::to_string(l));
          compute(ctx, rank, step, plan.compute.layers[l].forward * slow, &sum.forward,
                  "forward, layer " + std::to_string(l));
        }
      } else {
        compute(ctx, rank, step, plan.compute.forward * slow, &sum.forward, "forward");
      }
      const bool last = micro == micro_batches - 1;
      if (!last) {
        // DDP no_sync(): gradients accumulate locally, nothing is reduced.
        compute(ctx, rank, step, plan.compute.backward * slow, &sum.backward, "backward");
        continue;
      }
      for (int b = 0; b < buckets; ++b) {
        compute(ctx, rank, step, plan.backward_segments[b] * slow, &sum.backward,
                "backward to bucket " + std::to_string(b));
        if (s.sync.overlap) {
          if (b == buckets - 1) report_grads_ready(ctx, rank, step);
          sync.bucket_ready(rank, step, b);
        }
      }
      compute(ctx, rank, step, plan.backward_segments[buckets] * slow, &sum.backward,
              "backward tail");
      if (!s.sync.overlap || buckets == 0) {
        report_grads_ready(ctx, rank, step);
        for (int b = 0; b < buckets; ++b) sync.bucket_ready(rank, step, b);
      }
    }
    const double sync_start = now();
    sync.wait_synchronised(rank, step);
    book_wait(ctx, rank, step, sync.peer_step(step), sync_start, "wait for gradients");
    if (sync.worker_runs_optimizer() && !gated)
      compute(ctx, rank, step, plan.compute.optimizer * slow, &sum.optimizer, "optimizer");
    stats.step_end[step] = now();
    stats.steps_done = step + 1;
    stats.sum_done = sum;
    ctx->step_finished(rank, step);
    if (ctx->stopped_after >= 0) break;  // a steady state: every other actor is gone
  }
}

}  // namespace ddpsim
