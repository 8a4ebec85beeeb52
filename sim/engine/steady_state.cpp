#include "sim/engine/steady_state.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <simgrid/s4u.hpp>

#include "sim/engine/run_context.h"

namespace ddpsim {
namespace {

constexpr double kAgree = 1e-9;  // relative to the step

bool same(double a, double b, double step) {
  return std::fabs(a - b) <= kAgree * std::max({std::fabs(step), std::fabs(a), std::fabs(b)});
}

Breakdown minus(const Breakdown& a, const Breakdown& b) {
  Breakdown d;
  d.data_wait = a.data_wait - b.data_wait;
  d.forward = a.forward - b.forward;
  d.backward = a.backward - b.backward;
  d.exposed_comm = a.exposed_comm - b.exposed_comm;
  d.straggler_wait = a.straggler_wait - b.straggler_wait;
  d.optimizer = a.optimizer - b.optimizer;
  return d;
}

}  // namespace

int steady_stop_candidate(const Scenario& s) {
  if (s.stragglers.kind != StragglerKind::kNone && s.stragglers.kind != StragglerKind::kFixed)
    return -1;
  // Local SGD and asynchronous parameter servers: steps differ by design (averaging periods,
  // staleness). Pulls read in forward leave every pull of a step in flight at its boundary.
  if (s.sync.strategy == SyncStrategy::kLocalSgd) return -1;
  if (s.sync.strategy == SyncStrategy::kParameterServer &&
      (s.sync.ps.mode != PsMode::kSync || s.sync.ps.pull != PsPull::kEager))
    return -1;
  // Priority scheduling gates the next forward on this step's pulls: the step boundary is not
  // where the state repeats.
  if (s.sync.schedule != CommSchedule::kFifo) return -1;
  // A real input pipeline keeps every step: its state (the prefetch queue, seeded read stalls,
  // a first epoch that ends part way, a store shared with other traffic) is not what the step
  // comparison below checks, and its byte counters cover every trained batch.
  if (!s.data.synthetic) return -1;
  const int candidate = s.training.warmup + 1;
  // Stopping after the last step saves nothing.
  return candidate <= s.training.iterations - 2 ? candidate : -1;
}

bool steps_agree(const RunContext& ctx, int step) {
  const int warmup = ctx.warmup();
  if (step != warmup + 1) return false;
  const Scenario& s = *ctx.scenario;
  const double alone = ctx.plan->compute.step_time(s.training.gradient_accumulation);
  const double feed_rate = ctx.feed->rate_per_gpu();
  const double train_rate =
      alone > 0 ? s.training.batch_per_gpu * s.training.gradient_accumulation / alone : 0;
  // A loader slower than training empties its prefetched batches step by step while the steps
  // still agree; once it starves every GPU in both steps its state repeats.
  const bool loader_keeps_up = s.data.synthetic || feed_rate <= 0 || feed_rate > train_rate;
  double prev_end_global = 0, end_global = 0, before_global = 0;
  for (const WorkerStats& w : ctx.workers) {
    if (static_cast<int>(w.sum_at_end.size()) <= step) return false;
    const double before = step >= 2 ? w.step_end[step - 2] : 0.0;
    const double d0 = w.step_end[step - 1] - before, d1 = w.step_end[step] - w.step_end[step - 1];
    if (!same(d0, d1, d1)) return false;
    const Breakdown first = w.sum_at_end[step - 1];  // measured sums start at warmup
    const Breakdown second = minus(w.sum_at_end[step], w.sum_at_end[step - 1]);
    for (auto item : {&Breakdown::data_wait, &Breakdown::forward, &Breakdown::backward,
                      &Breakdown::exposed_comm, &Breakdown::straggler_wait, &Breakdown::optimizer})
      if (!same(first.*item, second.*item, d1)) return false;
    if (!same(w.busy_at_end[step - 1], w.busy_at_end[step] - w.busy_at_end[step - 1], d1))
      return false;
    if (!loader_keeps_up && !(first.data_wait > 0 && second.data_wait > 0)) return false;
    before_global = std::max(before_global, before);
    prev_end_global = std::max(prev_end_global, w.step_end[step - 1]);
    end_global = std::max(end_global, w.step_end[step]);
  }
  return same(prev_end_global - before_global, end_global - prev_end_global,
              end_global - prev_end_global);
}

std::string steady_state_note(int step, int steps) {
  return fmt::format(
      "steady state: steps {} and {} agree to 1e-9 on every GPU, so the run stopped after step {} "
      "of {} and reports it (the later steps repeat it)",
      step - 1, step, step, steps - 1);
}

void RunContext::step_finished(int rank, int step) {
  if (finished.size() < static_cast<size_t>(steps())) finished.resize(steps(), 0);
  if (steady_candidate >= 0 && step <= steady_candidate) {
    WorkerStats& w = workers[rank];
    w.sum_at_end.push_back(w.sum);  // steps end in order: entry `step`
    w.busy_at_end.push_back(sync->comm_busy(rank));
  }
  const int done = ++finished[step];
  if (meter && done == 1) {
    // The traced step's link details (the trace's counters) start when the first GPU finished
    // the step before it: the candidate's, then, if the run went on, the last step's alone.
    if (step == steady_candidate - 1) meter->keep_details_from_now();
    if (step == steps() - 2) {
      if (steady_candidate >= 0)
        meter->restart_details_from_now();
      else
        meter->keep_details_from_now();
    }
  }
  if (done < static_cast<int>(workers.size())) return;
  if (meter && step == warmup() - 1) meter->open_window();
  if (step == steady_candidate - 1) traffic_before_candidate = traffic;
  if (step == steady_candidate && steps_agree(*this, step)) {
    stopped_after = step;
    traffic_at_stop = traffic;
    if (meter) meter->close_window();
    simgrid::s4u::Actor::kill_all();  // the caller, the last GPU to finish, returns by itself
    return;
  }
  if (step == steps() - 1) {
    if (meter) meter->close_window();
    sync->steps_over();
  }
}

}  // namespace ddpsim
