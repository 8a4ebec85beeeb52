#include "sim/engine/worker_steps.h"

#include <algorithm>
#include <simgrid/s4u.hpp>

namespace ddpsim {

namespace this_actor = simgrid::s4u::this_actor;

double now() { return simgrid::s4u::Engine::get_clock(); }

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
    push_step_event(ctx->trace, {rank, "compute", name, start, now()}, step);
}

void wait_for_batch(RunContext* ctx, int rank, int step, int micro) {
  const double start = now();
  ctx->feed->wait_batch(rank, step, micro);
  if (ctx->measured(step)) ctx->workers[rank].sum.data_wait += now() - start;
  if (ctx->traced(rank, step) && now() > start)
    push_step_event(ctx->trace, {rank, "compute", "data wait", start, now()}, step);
}

void report_grads_ready(RunContext* ctx, int rank, int step) {
  if (ctx->last_grads_ready.empty()) {
    ctx->last_grads_ready.assign(ctx->steps(), -1.0);
    ctx->grads_reported.assign(ctx->steps(), 0);
  }
  ctx->workers[rank].grads_ready[step] = now();
  ctx->last_grads_ready[step] = std::max(ctx->last_grads_ready[step], now());
  ++ctx->grads_reported[step];
}

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
      push_step_event(ctx->trace, {rank, "compute", "wait for a slower GPU", start, start + straggler}, step);
    if (waited > straggler) push_step_event(ctx->trace, {rank, "compute", name, start + straggler, now()}, step);
  }
}

}  // namespace ddpsim
