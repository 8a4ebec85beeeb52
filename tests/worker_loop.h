// Test helper: the real worker loop of every GPU over a hand-made iteration plan, inside the
// SimGrid engine of run_in_engine() (tests/sim_harness.h), with synthetic data and the
// synchronisation `make_sync` builds; the caller reads *ctx after the run.
#pragma once

#include <functional>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>

#include "sim/engine/data_feed.h"
#include "sim/engine/run_context.h"
#include "sim/engine/worker.h"

namespace ddpsim::testing {

inline void run_worker_loop(
    const Scenario& s, const IterationPlan& plan, ClusterPlatform* pf,
    const std::function<std::unique_ptr<GradientSync>(RunContext*)>& make_sync, RunContext* ctx) {
  ctx->scenario = &s;
  ctx->plan = &plan;
  ctx->platform = pf;
  ctx->transport = std::make_unique<Transport>(*pf, &ctx->traffic);
  ctx->workers.resize(s.cluster.total_gpus());
  ctx->feed = std::make_unique<SyntheticFeed>();
  ctx->sync = make_sync(ctx);
  for (int r = 0; r < s.cluster.total_gpus(); ++r)
    simgrid::s4u::Actor::create("worker" + std::to_string(r), pf->gpus[r],
                                [ctx, r] { run_worker(ctx, r); });
  simgrid::s4u::Engine::get_instance()->run();
}

}  // namespace ddpsim::testing
