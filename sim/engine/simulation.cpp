#include "sim/engine/simulation.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/cost/compute_cost.h"
#include "sim/cost/effective_scenario.h"
#include "sim/cost/memory_fit.h"
#include "sim/cost/model_flops.h"
#include "sim/cost/resource_estimate.h"
#include "sim/cost/shard_units.h"
#include "sim/cost/symmetry.h"
#include "sim/data/loader_advice.h"
#include "sim/engine/data_feed_factory.h"
#include "sim/engine/link_usage.h"
#include "sim/engine/run_context.h"
#include "sim/engine/sharded_worker.h"
#include "sim/engine/steady_state.h"
#include "sim/engine/sync_factory.h"
#include "sim/engine/trace_details.h"
#include "sim/engine/worker.h"
#include "sim/model/model_zoo.h"
#include "sim/process/isolated.h"
#include "sim/results/result_json.h"
#include "sim/results/scaling_note.h"
#include "sim/text/input_error.h"

namespace ddpsim {
namespace {

Model build_or_throw(const ModelSpec& spec) {
  Model model;
  std::string error;
  if (!build_model(spec, &model, &error)) throw InputError({}, error);
  return model;
}

// --max-wall: a daemon actor looks at the wall clock every `dt` of simulated time, adapting dt
// so that it looks about every 10 ms of wall time (at least 16 times per single-GPU step, or
// every thousandth of the simulated time so far), and stops every actor once the deadline has
// passed, or once the simulated clock has overflowed (run_simulation reports that, at the clock
// of the stop in `*stopped_at`: activities left after kill_all() may still move the clock on,
// by an amount that varied between builds of the same sources, 1e+09 s against 1.15e+09 s).
void watch_wall_clock(std::chrono::steady_clock::time_point deadline, double max_dt,
                      double* stopped_at) {
  using Clock = std::chrono::steady_clock;
  double dt = std::min(1e-6, max_dt);
  Clock::time_point last = Clock::now();
  for (;;) {
    simgrid::s4u::this_actor::sleep_for(dt);
    const Clock::time_point now = Clock::now();
    // A clock run away is an overflow, not a deadline: the check after run() reports it.
    if (now >= deadline || simgrid::s4u::Engine::get_clock() > kMaxSimulatedSeconds) {
      *stopped_at = simgrid::s4u::Engine::get_clock();
      simgrid::s4u::Actor::kill_all();
      return;
    }
    const double wall = std::chrono::duration<double>(now - last).count();
    last = now;
    // Up to a thousandth of the clock as well: a run whose events lie centuries apart (a clock
    // heading for overflow) reaches them in a few thousand looks, not in billions.
    const double cap = std::max(max_dt, simgrid::s4u::Engine::get_clock() * 1e-3);
    if (wall < 0.005) dt = std::min(2 * dt, cap);
    if (wall > 0.02) dt = std::max(dt / 2, 1e-12);
  }
}

// full_gpus: the cluster's GPUs, more than the simulated p under the symmetric scope, whose
// slice's ranks and links stand for all of them (per-GPU figures are the slice's averages,
// totals scale by full_gpus / p, the fabric's bytes by fabric_fold: symmetry.h).
void summarise(const RunContext& ctx, const Model& model, int full_gpus, double fabric_fold,
               SimulationResult* r) {
  const Scenario& s = *ctx.scenario;
  const int p = s.cluster.total_gpus();
  const double fold = static_cast<double>(full_gpus) / p;
  auto class_fold = [&](int c) {
    return c == static_cast<int>(LinkClass::kFabric) ? fabric_fold : fold;
  };
  // A run stopped by --max-wall is summarised over the steps every GPU completed; when those do
  // not reach past warmup, over the completed warmup steps (iteration time only).
  // A run stopped at its steady state ran up to that step (steady_state.h).
  const bool steady = ctx.stopped_after >= 0;
  int steps = ctx.run_steps();
  for (const WorkerStats& w : ctx.workers) steps = std::min(steps, w.steps_done);
  r->partial = steps < ctx.run_steps();
  const int warmup = steps > ctx.warmup() ? ctx.warmup() : 0;
  const int measured = steps - warmup;  // 0 only when stopped before any step completed

  auto latest_end = [&](int step) {
    double t = 0;
    for (const WorkerStats& w : ctx.workers) t = std::max(t, w.step_end[step]);
    return t;
  };
  const double start = warmup > 0 ? latest_end(warmup - 1) : 0.0;
  if (measured > 0) r->iteration_time = (latest_end(steps - 1) - start) / measured;
  r->global_batch =
      static_cast<double>(full_gpus) * s.training.batch_per_gpu * s.training.gradient_accumulation;
  r->samples_per_second = r->iteration_time > 0 ? r->global_batch / r->iteration_time : 0;

  double slowest_compute = -1;
  for (int rank = 0; rank < p; ++rank) {
    const WorkerStats& w = ctx.workers[rank];
    // Steady: the other GPUs were stopped part way into the next step.
    Breakdown b = r->partial || steady ? w.sum_done : w.sum;
    // Partial: this GPU's own completed measured steps (warmup steps are never summed).
    const int summed = r->partial ? std::max(w.steps_done - ctx.warmup(), 0) : measured;
    for (double* v :
         {&b.data_wait, &b.forward, &b.backward, &b.exposed_comm, &b.straggler_wait, &b.optimizer})
      *v = summed > 0 ? *v / summed : 0.0;
    r->breakdown.data_wait += b.data_wait / p;
    r->breakdown.forward += b.forward / p;
    r->breakdown.backward += b.backward / p;
    r->breakdown.exposed_comm += b.exposed_comm / p;
    r->breakdown.straggler_wait += b.straggler_wait / p;
    r->breakdown.optimizer += b.optimizer / p;
    const double compute = b.forward + b.backward + b.optimizer;
    if (compute > slowest_compute) {
      slowest_compute = compute;
      r->slowest_gpu = b;
    }
    const double busy = steady ? w.busy_at_end[ctx.stopped_after] : ctx.sync->comm_busy(rank);
    if (summed > 0) r->comm_time += busy / summed / p;
  }
  if (r->iteration_time > 0) {
    r->comm_share = r->comm_time / r->iteration_time;
    r->exposed_comm_share = r->breakdown.exposed_comm / r->iteration_time;
    r->straggler_share = r->breakdown.straggler_wait / r->iteration_time;
  }
  if (steady) {
    // One steady step's bytes: what the counters grew by over the last step (the loader had
    // read as far ahead at its start as at its end).
    const TrafficCounters& a = ctx.traffic_before_candidate;
    const TrafficCounters& b = ctx.traffic_at_stop;
    for (int c = 0; c < kLinkClasses; ++c)
      r->bytes_per_link_class[c] = (b.bytes_per_class[c] - a.bytes_per_class[c]) * class_fold(c);
    auto grown = [](const auto& before, const auto& after) {
      double sum = 0;
      for (const auto& [host, bytes] : after) {
        const auto it = before.find(host);
        sum += bytes - (it == before.end() ? 0.0 : it->second);
      }
      return sum;
    };
    r->bytes_sent = grown(a.sent, b.sent) * fold;
    r->bytes_received = grown(a.received, b.received) * fold;
  } else {
    const int per = std::max(steps, 1);
    for (int c = 0; c < kLinkClasses; ++c)
      r->bytes_per_link_class[c] = ctx.traffic.bytes_per_class[c] / per * class_fold(c);
    for (const auto& [host, bytes] : ctx.traffic.sent) r->bytes_sent += bytes / per * fold;
    for (const auto& [host, bytes] : ctx.traffic.received) r->bytes_received += bytes / per * fold;
  }
  r->buckets = ctx.sync->bucket_reports();
  const double step_alone = ctx.plan->compute.step_time(s.training.gradient_accumulation);
  r->train_rate_per_gpu =
      step_alone > 0 ? s.training.batch_per_gpu * s.training.gradient_accumulation / step_alone : 0;
  r->data_rate_per_gpu = ctx.feed->rate_per_gpu();
  if (ctx.meter) r->links = link_usage(*ctx.meter, measured);
  r->trace = ctx.trace;
  ctx.sync->append_trace(&r->trace);
  ctx.feed->append_trace(&r->trace);
  const int reported = ctx.run_steps() - 1;
  // Two steps were traced where the run might have stopped: keep the one reported. The step
  // tag is trace_details' to set (only where links were measured).
  r->trace.erase(std::remove_if(r->trace.begin(), r->trace.end(),
                                [reported](const TraceEvent& e) {
                                  const auto it = e.numbers.find("step");
                                  return it != e.numbers.end() && it->second != reported;
                                }),
                 r->trace.end());
  for (TraceEvent& e : r->trace) e.numbers.erase("step");
  for (int rank = 0; rank < p; ++rank)
    if (ctx.traced(rank, reported)) r->traced_gpus.push_back(rank);
  if (ctx.meter) add_trace_details(ctx, r);
  std::stable_sort(r->trace.begin(), r->trace.end(), [](const TraceEvent& a, const TraceEvent& b) {
    return a.gpu != b.gpu ? a.gpu < b.gpu : a.start < b.start;
  });
  r->model = model.name;
  r->model_trainable_parameters = model.params();
  r->model_parameters = model.params() + model.frozen_params();
  r->model_forward_flops_per_sample = model.fwd_flops();
  const TransformerFlops flops = transformer_flops(model);
  if (flops.transformer) {
    r->tokens_per_sample = flops.tokens_per_sample;
    r->model_flops_per_token = flops.model_flops_per_token();
    r->hardware_flops_per_token =
        flops.hardware_flops_per_token(s.training.activation_checkpointing);
    r->peak_flops_per_gpu = matmul_peak(s.cluster.gpu, s.training.precision);
  }
  ctx.sync->report(r);
}

}  // namespace

std::string bottleneck_label(const SimulationResult& r) {
  if (!r.memory.fits) return "memory-infeasible";
  if (r.iteration_time <= 0) return "compute-bound";
  const double data = r.breakdown.data_wait / r.iteration_time;
  const double comm = r.breakdown.exposed_comm / r.iteration_time;
  const double straggler = r.breakdown.straggler_wait / r.iteration_time;
  if (std::max({data, comm, straggler}) < 0.10) return "compute-bound";
  if (data >= comm && data >= straggler) return "data-loading-bound";
  return comm >= straggler ? "communication-bound" : "straggler-bound";
}

Scenario single_gpu_baseline(const Scenario& scenario) {
  Scenario one = scenario;
  one.cluster.nodes = 1;
  one.cluster.gpus_per_node = 1;
  one.cluster.nic.count = 1;
  // The lone GPU keeps its PCIe switch and uplink; a switch shared by more GPUs than the node
  // now has would not divide them (the platform refuses that).
  one.cluster.pcie_switch.gpus = std::min(one.cluster.pcie_switch.gpus, 1);
  one.compute.slowest_gpu = 1;  // a lone GPU waits for no slower peer
  // One GPU sits on one socket (the first): two sockets would not divide a node of one GPU.
  one.cluster.host.sockets = 1;
  one.sync.strategy = SyncStrategy::kAllReduce;
  one.sync.algorithm = AllReduceAlgorithm::kRing;
  one.sync.channels = 0;
  one.sync.sharding.strategy = Sharding::kNone;  // one GPU holds everything: plain DDP
  // A baseline GPU runs at its own speed: rank 0's straggler factor would bias the efficiency.
  one.stragglers = StragglerSpec{};
  one.simulation.scope = SimulationScope::kFull;  // one GPU has nothing to fold
  return one;
}

SimulationResult run_simulation(const Scenario& stated, const SimOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  // What was left open, resolved once (effective_scenario.h). Under the symmetric scope the
  // simulator runs a slice of the cluster (sim/cost/symmetry.h); `scenario` is what runs, `full`
  // what the result describes.
  const Scenario full = effective_scenario(stated);
  // A run that reports neither links nor a trace (an uncertainty draw) folds at any size.
  const bool headline_only = !options.measure_links &&
                             options.trace.kind == TraceGpus::Kind::kList &&
                             options.trace.ranks.empty();
  const ScopeDecision scope = decide_scope(full, headline_only);
  const Scenario scenario = scope.symmetric ? slice_scenario(full, scope.slice_nodes) : full;
  const Model model = build_or_throw(scenario.model);
  // Each GPU updates its shard of the cluster's optimizer state, not of the slice's.
  const IterationPlan plan = build_iteration_plan(scenario, model, shard_group_size(full));
  std::vector<std::string> warnings = scenario.cluster.calibration_warnings;
  warnings.insert(warnings.end(), scenario.cluster.input_warnings.begin(),
                  scenario.cluster.input_warnings.end());
  if (!scenario.compute.profile_mismatch.empty())
    warnings.push_back(scenario.compute.profile_mismatch);
  // The buffer broadcast is costed like a bucket: a measured table must cover its size too.
  std::vector<Bucket> collectives = plan.buckets;
  if (uses_buffer_broadcast(scenario))
    collectives.push_back({{}, scenario.sync.buffer_broadcast, 0});
  for (std::string& w : alpha_beta_warnings(scenario, collectives))
    warnings.push_back(std::move(w));
  // A loader slower than training that more CPU cores would not speed up says what binds.
  const double step_alone = plan.compute.step_time(scenario.training.gradient_accumulation);
  if (step_alone > 0) {
    const std::string loader = loader_limit_warning(
        scenario,
        scenario.training.batch_per_gpu * scenario.training.gradient_accumulation / step_alone,
        plan.compute.h2d_bandwidth);
    if (!loader.empty()) warnings.push_back(loader);
  }

  EngineCommandLine command_line(/*stoppable=*/options.max_wall_seconds > 0);
  simgrid::s4u::Engine engine(&command_line.argc, command_line.argv);
  // More actors than stack guard pages allow: run without them (resource_estimate.h).
  configure_network_model(estimate_resources(full, plan).actors <= machine_limits(0).max_actors);
  ClusterPlatform platform = build_cluster_platform(scenario.cluster, platform_extras(scenario));
  platform.logical_nodes = full.cluster.nodes;

  RunContext ctx;
  ctx.scenario = &scenario;
  ctx.plan = &plan;
  ctx.platform = &platform;
  if (scope.symmetric && options.trace.kind == TraceGpus::Kind::kList) {
    // The slice's GPUs stand for all of them; a listed GPU outside it has no timeline of its own.
    const int simulated = scenario.cluster.total_gpus();
    for (int r : options.trace.ranks)
      if (r >= simulated && r < full.cluster.total_gpus())
        throw InputError(fmt::format(
            "--trace-gpus: GPU {} is not simulated: the symmetric scope runs GPUs 0-{} of {}, "
            "which stand for all of them; trace one of those, or set simulation.scope: full",
            r, simulated - 1, full.cluster.total_gpus()));
  }
  if (options.steady_stop) ctx.steady_candidate = steady_stop_candidate(scenario);
  ctx.traced_ranks.assign(scenario.cluster.total_gpus(), false);
  for (int rank : traced_ranks(scenario, options.trace)) ctx.traced_ranks[rank] = true;
  if (options.measure_links) {
    ctx.meter = std::make_unique<LinkMeter>(platform);
    if (scenario.training.warmup == 0) ctx.meter->open_window();
    if (scenario.training.iterations == 1) ctx.meter->keep_details_from_now();
  }
  ctx.transport = std::make_unique<Transport>(platform, &ctx.traffic, ctx.meter.get());
  ctx.node_lanes = ps_node_lanes(full, headline_only);
  ctx.workers.resize(scenario.cluster.total_gpus());
  if (plan.compute.overlap_slowdown != 1.0)
    ctx.interference = std::make_unique<ComputeInterference>(scenario.cluster.total_gpus(),
                                                             plan.compute.overlap_slowdown);
  ctx.feed = make_data_feed(&ctx);
  ShardedSync* sharded = nullptr;
  if (scenario.sync.sharding.strategy != Sharding::kNone) {
    std::unique_ptr<ShardedSync> streams = make_sharded_sync(&ctx);
    sharded = streams.get();
    ctx.sync = std::move(streams);
  } else {
    ctx.sync = make_gradient_sync(&ctx);
  }
  if (uses_buffer_broadcast(scenario) && !sharded)
    ctx.buffer_broadcast = make_allreduce(scenario, ctx.transport.get());
  for (int rank = 0; rank < scenario.cluster.total_gpus(); ++rank)
    simgrid::s4u::Actor::create("worker" + std::to_string(rank), platform.gpus[rank],
                                [&ctx, rank, sharded] {
                                  if (sharded)
                                    run_sharded_worker(&ctx, sharded, rank);
                                  else
                                    run_worker(&ctx, rank);
                                });
  double stopped_at = 0;  // the simulated clock when the wall-clock watcher stopped the run
  if (options.max_wall_seconds > 0) {
    const auto deadline = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                        std::chrono::duration<double>(options.max_wall_seconds));
    const double step = plan.compute.step_time(scenario.training.gradient_accumulation);
    const double max_dt = step > 0 ? step / 16 : 1e-3;
    simgrid::s4u::Actor::create("wall-clock", platform.gpus[0], [deadline, max_dt, &stopped_at] {
      watch_wall_clock(deadline, max_dt, &stopped_at);
    })->daemonize();
  }
  engine.run();
  if (ctx.meter) ctx.meter->settle();
  if (!(simgrid::s4u::Engine::get_clock() <= kMaxSimulatedSeconds))
    throw InputError(
        {scenario.source},
        simulated_clock_overflow(
            stopped_at > kMaxSimulatedSeconds ? stopped_at : simgrid::s4u::Engine::get_clock(),
            false));

  SimulationResult result;
  result.scenario = scenario.name;
  result.gpus = full.cluster.total_gpus();
  result.nodes = full.cluster.nodes;
  summarise(ctx, model, full.cluster.total_gpus(),
            scope.symmetric ? fabric_bytes_fold(full, scope.slice_nodes) : 1.0, &result);
  result.memory = memory_report(full, model);
  if (!result.memory.fits) result.memory.fits_with = fits_with(full, model);
  result.notes = sync_notes(full);
  if (!scope.routine) result.notes += "; " + scope.note;
  if (ctx.node_lanes_ran)
    result.notes +=
        "; node lanes: each node's GPUs push and pull as one flow (headline figures "
        "only)";
  if (!scenario.cluster.calibration.empty())
    result.notes += "; links from " + scenario.cluster.calibration + " (" +
                    fmt::format("{}", fmt::join(scenario.cluster.calibration_notes, "; ")) + ")";
  result.warnings = std::move(warnings);
  if (ctx.interference) {
    char note[96];
    std::snprintf(note, sizeof note, "; compute %.3gx slower while its GPU communicates (%s)",
                  plan.compute.overlap_slowdown, plan.compute.overlap_source.c_str());
    result.notes += note;
  }
  if (ctx.stopped_after >= 0)
    result.notes += "; " + steady_state_note(ctx.stopped_after, scenario.training.iterations);
  if (result.partial) {
    int done = scenario.training.iterations;
    for (const WorkerStats& w : ctx.workers) done = std::min(done, w.steps_done);
    result.notes += "; partial: stopped by --max-wall after " + std::to_string(done) + " of " +
                    std::to_string(scenario.training.iterations) + " steps";
  }
  result.bottleneck = bottleneck_label(result);
  if (result.bottleneck == "communication-bound")
    result.bottleneck_link = binding_links(result.links);
  // Stopped before every GPU finished one step: there is nothing to label.
  if (result.partial && result.iteration_time == 0) result.bottleneck = "unknown";
  return result;
}

namespace {

SimulationResult run_forked(const Scenario& s, const SimOptions& o) {
  IsolatedResult child = run_isolated([&] { return result_to_json(run_simulation(s, o)).dump(); });
  if (!child.ok) {
    if (child.exit_code == kExitBadInput) throw InputError(child.payload);
    throw std::runtime_error("simulation failed: " + child.payload);
  }
  return result_from_json(nlohmann::json::parse(child.payload));
}

// The scaling baseline's own run is needed unless the scenario is its own baseline.
bool needs_baseline_run(const Scenario& scenario, const SimOptions& options) {
  return options.baseline &&
         !(scenario.cluster.total_gpus() == 1 && scenario.stragglers.kind == StragglerKind::kNone);
}

SimulationResult run_baseline(const Scenario& scenario, const SimOptions& options) {
  SimOptions quiet = options;
  quiet.trace = TraceGpus::none();
  return run_forked(single_gpu_baseline(scenario), quiet);
}

void add_baseline(const Scenario& scenario, SimulationResult one, SimulationResult* result) {
  result->single_gpu_samples_per_second = one.samples_per_second;
  result->single_gpu_bottleneck = one.bottleneck;
  if (one.samples_per_second > 0)
    result->scaling_efficiency =
        result->samples_per_second / (result->gpus * one.samples_per_second);
  const std::string superlinear = superlinear_note(scenario, *result, one);
  if (!superlinear.empty()) result->notes += (result->notes.empty() ? "" : "; ") + superlinear;
}

}  // namespace

SimulationResult simulate(const Scenario& scenario, const SimOptions& options) {
  SimulationResult result = run_forked(scenario, options);
  if (options.baseline)
    add_baseline(scenario,
                 needs_baseline_run(scenario, options) ? run_baseline(scenario, options) : result,
                 &result);
  return result;
}

SimulationResult simulate_here(const Scenario& scenario, const SimOptions& options) {
  // The baseline forks first: a process that has run an engine cannot give a clean one to a child.
  SimulationResult one;
  const bool baseline_run = needs_baseline_run(scenario, options);
  if (baseline_run) one = run_baseline(scenario, options);
  // Through JSON as simulate()'s result comes, so both return the same values to the bit.
  SimulationResult result = result_from_json(
      nlohmann::json::parse(result_to_json(run_simulation(scenario, options)).dump()));
  if (options.baseline) add_baseline(scenario, baseline_run ? one : result, &result);
  return result;
}

}  // namespace ddpsim
