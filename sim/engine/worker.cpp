#include "sim/engine/worker.h"

#include <algorithm>
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

// This GPU's last gradient of `step` is ready: the straggler rule below needs the latest such
// moment over all GPUs.
void report_grads_ready(RunContext* ctx, int rank, int step) {
  if (ctx->last_grads_ready.empty()) {
    ctx->last_grads_ready.assign(ctx->steps(), -1.0);
    ctx->grads_reported.assign(ctx->steps(), 0);
  }
  ctx->workers[rank].grads_ready[step] = now();
  ctx->last_grads_ready[step] = std::max(ctx->last_grads_ready[step], now());
  ++ctx->grads_reported[step];
}

// Books a synchronisation wait that began at `start` and ended now. The part before the last GPU
// had produced the gradients this wait depends on (step `peer_step`) is waiting for a slower peer
// (straggler_wait): no bandwidth would have shortened it. The rest is exposed communication. The
// rule is the same for every strategy: all-reduce, parameter servers, local SGD.
void book_wait(RunContext* ctx, int rank, int step, int peer_step, double start,
               const std::string& name) {
  const double waited = now() - start;
  if (waited <= 0) return;
  double straggler = 0;
  if (peer_step >= 0 && !ctx->last_grads_ready.empty())
    straggler = std::clamp(ctx->last_grads_ready[peer_step] - start, 0.0, waited);
  if (ctx->measured(step)) {
    Breakdown& sum = ctx->workers[rank].sum;
    sum.straggler_wait += straggler;
    sum.exposed_comm += waited - straggler;
  }
  if (ctx->traced(rank, step)) {
    if (straggler > 0)
      ctx->trace.push_back({rank, "compute", "wait for a slower GPU", start, start + straggler});
    if (waited > straggler) ctx->trace.push_back({rank, "compute", name, start + straggler, now()});
  }
}

}  // namespace

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
      const double wait_start = now();
      ctx->feed->wait_batch(rank, step, micro);
      if (ctx->measured(step)) sum.data_wait += now() - wait_start;
      if (ctx->traced(rank, step) && now() > wait_start)
        ctx->trace.push_back({rank, "compute", "data wait", wait_start, now()});

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
    ctx->step_finished(step);
  }
}

}  // namespace ddpsim
