#include "sim/cost/resource_estimate.h"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <stdexcept>
#include <vector>

#include "sim/cost/comm_schedule.h"
#include "sim/cost/effective_scenario.h"
#include "sim/cost/symmetry.h"
#include "sim/scenario/collective_algorithms.h"
#include "sim/text/input_error.h"

namespace ddpsim {
namespace {

// CPU time and peak RSS of `ddpsim simulate` on the build machine, ResNet-50, flow and chunked
// ring from 32 to 8192 GPUs (docs/reliability.md, "Resource guards").
constexpr double kPlatformSecondsPerGpu = 1.0e-5;  // hosts, links, zones
// SimGrid's seal of each leaf zone scans every host (cluster_platform.cpp): 0.17 s at 8192 GPUs,
// 0.8 s at 16,384, 3.3 s at 32,768 on the build machine (issue 16).
constexpr double kPlatformSecondsPerGpu2 = 3.0e-9;
// One simulated message or sleep: 2.4 us at 128 GPUs, 3.2 us at 256, 6-11 us from 2048 on (the
// max-min solver's shared components grow with the platform).
constexpr double kSecondsPerEventSmall = 2.5e-6;
constexpr double kSecondsPerEventPerDoubling = 1.0e-6;  // per doubling of the GPUs above 128
// Flows in flight at once in those runs: 128 GPUs' flow ring, two out-edges per rank.
constexpr double kFlowsAtCalibration = 256;
// What a run holds before its first GPU (libraries, the scenario, the model, SimGrid's engine):
// peak RSS of a one-GPU run 11.0 MiB in a forked child (`ddpsim bench`, sweep points), 35.2 MiB
// as `ddpsim simulate` with its output; 22 MiB is within 2x of both (docs/scale.md, "Resource
// guard": every sharded estimate then within 2x of both measurements at 64 and 512 GPUs).
constexpr double kBaseMemoryBytes = 22.0 * 1024 * 1024;
constexpr double kMemoryPerGpu = 12.0 * 1024;      // hosts, links, routes, per-rank state
constexpr double kMemoryPerActor = 8.0 * 1024;     // resident part of its stack + context
constexpr double kMemoryPerInFlightMessage = 256;  // a pending comm and its mailbox entry
// A sharded rank's queued collective (its FIFO entry, label, semaphores, trace and meter
// records): Llama-2-7B zero1 on 512 GPUs peaked at 272 MiB for 452 calls per rank and step
// (ddpsim bench, issue 27), about 1 KiB per call beyond the rest of this estimate.
constexpr double kMemoryPerShardedCall = 1024;

// Distinct out-edges per rank of the ring (ring_allreduce.cpp): inside a node every ring goes
// l -> l+1, so they share that edge; the rank where ring c leaves the node adds one more.
double ring_edges_per_rank(const ClusterSpec& c, int channels) {
  if (c.nodes == 1) return 1;
  return std::min(2.0, 1.0 + static_cast<double>(channels) / c.gpus_per_node);
}

struct SyncCost {
  double messages_per_call = 0;  // one all-reduce of one bucket, all ranks
  double sleeps_per_call = 0;    // latency sleeps, all ranks
  // Of those, the events that re-solve the sharing of every parameter-server flow in flight
  // (ps_event_factor): all of them when a GPU's pushes cross its PCIe link, which joins its
  // rings to them; under lanes only the pushes and pulls themselves and their latencies.
  double joined_per_call = 0;
  std::string description;
};

SyncCost all_reduce_cost(const Scenario& s, double bucket_bytes) {
  const ClusterSpec& c = s.cluster;
  const double p = c.total_gpus();
  SyncCost cost;
  if (p == 1) {
    cost.description = "one GPU: no communication";
    return cost;
  }
  if (s.sync.alpha_beta_timed()) {
    cost.sleeps_per_call = p;
    cost.description = "alpha-beta table: one sleep per rank per bucket, no flows";
    return cost;
  }
  const int channels = s.sync.channels;
  const double edges = ring_edges_per_rank(c, channels);
  const double ring_flow = p * edges;
  const double ring_chunked = 2 * (p - 1) * p * edges;
  const double tree = 4 * p;
  const CollectiveAlgorithm& algorithm = collective_algorithm(s.sync.algorithm);
  if (algorithm.guard == nullptr)  // the loader refuses it without sharding
    throw std::logic_error(std::string(algorithm.name) + " prices no all-reduce");
  const GuardFigures figures = algorithm.guard(
      {p, ring_flow, ring_chunked, tree, c.gpus_per_node, s.sync.mode == CollectiveMode::kChunked});
  cost.messages_per_call = figures.messages;
  cost.sleeps_per_call = figures.sleeps;
  cost.description = figures.description;
  (void)bucket_bytes;
  return cost;
}

// Servers: the stated ones, and under the byteps placement a CPU server on every node too.
int ps_servers(const Scenario& s) {
  return s.sync.ps.servers + (s.sync.ps.placement == PsPlacement::kByteps ? s.cluster.nodes : 0);
}

// Partitions of a bucket (ps_partition.h: the last one shorter).
double ps_chunks(const Scenario& s, double bucket_bytes) {
  return std::max(1.0, std::ceil(bucket_bytes / s.sync.partition));
}

// The bytes of each all-reduce a step issues. Without fusion, one per bucket. Horovod fusion
// (scheduled_allreduce.cpp) fuses the tensors ready at each cycle into threshold-sized buffers:
// when they all become ready at once (overlap false), the buffers fuse_tensors makes of them;
// when backward releases them over its length, at least one call per cycle of backward, at most
// one per tensor, the step's bytes spread evenly over them. Counting tensors instead cost BERT-
// large under fusion (391 tensors in 11 buffers) an estimate 9x the time it ran (2026-11-30).
std::vector<double> all_reduce_calls(const Scenario& s, const IterationPlan& plan) {
  std::vector<double> bytes;
  for (const Bucket& bucket : plan.buckets) bytes.push_back(bucket.bytes);
  if (!s.sync.fusion.enabled || s.sync.strategy == SyncStrategy::kParameterServer || bytes.empty())
    return bytes;
  const std::vector<std::vector<int>> groups = fuse_tensors(bytes, s.sync.fusion.threshold);
  std::vector<double> fused;
  for (const std::vector<int>& group : groups) {
    double sum = 0;
    for (int i : group) sum += bytes[i];
    fused.push_back(sum);
  }
  const double period = std::max(s.sync.fusion.cycle_time, s.sync.fusion.coordination);
  if (!s.sync.overlap || period <= 0) return fused;
  const double cycles = std::ceil(plan.compute.backward / period);
  const double calls = std::min(static_cast<double>(bytes.size()),
                                std::max(static_cast<double>(fused.size()), cycles));
  double total = 0;
  for (double b : bytes) total += b;
  return std::vector<double>(static_cast<size_t>(calls), total / calls);
}

// `lanes`: a node's GPUs push and pull as one flow (ps_node_lanes).
SyncCost parameter_server_cost(const Scenario& s, double bucket_bytes, bool lanes) {
  const double p = s.cluster.total_gpus();
  const double senders = lanes ? s.cluster.nodes : p;
  const double chunks = ps_chunks(s, bucket_bytes);
  SyncCost cost;
  // Push and pull of every partition by every worker (node, under lanes), plus the intra-node
  // rings.
  cost.messages_per_call = 2 * senders * chunks + 2 * p;
  // A latency per message and a sum per GPU's push on the servers.
  cost.sleeps_per_call = cost.messages_per_call + p * chunks;
  cost.joined_per_call =
      lanes ? 2 * 2 * senders * chunks : cost.messages_per_call + cost.sleeps_per_call;
  cost.description = lanes ? "parameter servers, node lanes: a push and a pull per node and "
                             "partition"
                           : "parameter servers: a push and a pull per worker and partition";
  return cost;
}

// How much dearer than an all-reduce's a joined event (SyncCost) of a parameter-server run is.
// Each flow that ends re-solves the sharing of every flow joined to it through the NICs, and a
// worker (a node, under lanes) keeps a push and a pull in flight to every server its partitions
// go to: 2 x senders x servers flows, where a ring at 128 GPUs, which kSecondsPerEventSmall was
// measured on, keeps 256. Measured (2026-11-30): 16 colocated servers over TCP at 128 K80s
// (4,096 flows) 42-45 s with links against 3.1 s estimated without this factor, 1.8 s as a
// headline-only run (lanes: 512 flows); 128 servers at 128 GPUs (32,768 flows) 473 s against
// 3.1 s (docs/performance.md, "The resource guard's estimate").
double ps_event_factor(const Scenario& s, const IterationPlan& plan, bool lanes) {
  const double senders = lanes ? s.cluster.nodes : s.cluster.total_gpus();
  const int servers = ps_servers(s);
  double partitions = 0;
  for (const Bucket& bucket : plan.buckets) partitions += ps_chunks(s, bucket.bytes);
  const double flows = 2 * senders * std::min<double>(servers, partitions);
  return std::max(1.0, flows / kFlowsAtCalibration);
}

// A sharded step's collectives (sharded_worker.cpp), counted once for every use in the estimate
// (messages, sleeps, one call's flows in flight, queued calls). zero1: a reduce-scatter per
// bucket on the last micro-batch and an all-gather per bucket after the update; zero2
// reduce-scatters every micro-batch; zero3 and fsdp-hybrid gather every unit in forward and
// backward and reduce-scatter it every micro-batch (fsdp-hybrid then all-reduces the shard across
// nodes). ZeRO-2/3 and FSDP issue theirs one micro-batch at a time, so at most one micro-batch's
// calls are queued at once; ZeRO-1's are all in its last micro-batch.
struct ShardedCalls {
  double per_rank = 0;   // calls per rank and optimizer step; 0 without sharding
  double issued_in = 1;  // micro-batches they are spread over (queued at once: per_rank / this)
};

ShardedCalls sharded_calls(const Scenario& s, const IterationPlan& plan) {
  const double buckets = static_cast<double>(plan.buckets.size());
  const double units = static_cast<double>(plan.units.size());
  const double micro = s.training.gradient_accumulation;
  ShardedCalls calls;
  switch (s.sync.sharding.strategy) {
    case Sharding::kZero1:
      calls.per_rank = 2 * buckets;
      break;
    case Sharding::kZero2:
      calls.per_rank = (micro + 1) * buckets;
      calls.issued_in = micro;
      break;
    case Sharding::kZero3:
      calls.per_rank = 3 * units * micro;
      calls.issued_in = micro;
      break;
    case Sharding::kHybrid:
      calls.per_rank = 4 * units * micro;
      calls.issued_in = micro;
      break;
    case Sharding::kNone:
      break;
  }
  return calls;
}

// 1234567 -> "1,234,567" (no locale: the C++ locales present differ between machines).
std::string with_commas(double value) {
  std::string digits = fmt::format("{:.0f}", std::max(0.0, value));
  for (int i = static_cast<int>(digits.size()) - 3; i > 0; i -= 3) digits.insert(i, ",");
  return digits;
}

std::string human_seconds(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 7200) return fmt::format("{:.0f} min", s / 60);
  if (s < 2 * 86400) return fmt::format("{:.1f} h", s / 3600);
  if (s < 2 * 365.25 * 86400) return fmt::format("{:.0f} days", s / 86400);
  return fmt::format("{:.3g} years", s / (365.25 * 86400));
}

std::string human_bytes(double b) {
  if (b < 1024.0 * 1024 * 1024) return fmt::format("{:.0f} MiB", b / (1024.0 * 1024));
  return fmt::format("{:.1f} GiB", b / (1024.0 * 1024 * 1024));
}

}  // namespace

namespace {

ResourceEstimate estimate_run(const Scenario& s, const IterationPlan& plan, bool lanes) {
  ResourceEstimate e;
  const ClusterSpec& c = s.cluster;
  const double p = c.total_gpus();
  e.gpus = c.total_gpus();
  e.simulated_gpus = e.gpus;

  // Actors: one worker per GPU, its communication stream(s), servers, loader pipeline stages.
  int64_t per_gpu = 1;
  int64_t extra = 0;
  if (s.sync.strategy == SyncStrategy::kParameterServer) {
    // The intra-node reduce and gather (g > 1), and the connection senders busy at once (idle
    // ones wait in a pool): one per server and worker (node, under lanes) on average (a push and
    // a pull connection each, about half busy). Per server, its engine threads.
    const int servers = ps_servers(s);
    per_gpu += c.gpus_per_node > 1 ? 2 : 0;
    extra += static_cast<int64_t>(servers) *
             (s.sync.ps.server_threads + (lanes ? c.nodes : c.total_gpus()));
  } else {
    per_gpu += 1;  // the all-reduce stream (sharded: the shard group's FIFO)
    if (s.sync.sharding.strategy == Sharding::kHybrid) per_gpu += 1;  // the FIFO across nodes
  }
  if (!s.data.synthetic) per_gpu += s.data.decode == DecodeKind::kGpu ? 2 : 3;
  e.actors = per_gpu * e.gpus + extra + 1;  // + a --max-wall watchdog

  // Messages: every bucket is synchronised once per optimizer step (local SGD: once per period).
  double messages = 0, sleeps = 0, joined = 0;
  const double micro = s.training.gradient_accumulation;
  const ShardedCalls sharded = sharded_calls(s, plan);
  if (s.sync.sharding.strategy != Sharding::kNone) {
    // Sharded: every call is a flow-mode ring of one flow per edge and rank (world, node or rail)
    // and a latency sleep per rank.
    const double edges = ring_edges_per_rank(c, s.sync.channels);
    messages = sharded.per_rank * p * edges;
    sleeps = sharded.per_rank * p;
    e.sync_cost = "sharded, flow mode: one flow per ring edge per all-gather and reduce-scatter";
    if (auto guard = collective_algorithm(s.sync.algorithm).sharded_guard) {
      const GuardFigures figures = guard({p, p * edges, 0, 4 * p, c.gpus_per_node, false});
      messages = sharded.per_rank * figures.messages;
      sleeps = sharded.per_rank * figures.sleeps;
      e.sync_cost = figures.description;
    }
  }
  const std::vector<double> calls = all_reduce_calls(s, plan);
  for (double bytes : calls) {
    if (s.sync.sharding.strategy != Sharding::kNone) break;
    const SyncCost cost = s.sync.strategy == SyncStrategy::kParameterServer
                              ? parameter_server_cost(s, bytes, lanes)
                              : all_reduce_cost(s, bytes);
    messages += cost.messages_per_call;
    sleeps += cost.sleeps_per_call;
    joined += cost.joined_per_call;
    e.sync_cost = cost.description;
  }
  if (plan.buckets.empty()) e.sync_cost = "no gradients: no communication";
  const double segments =
      s.sync.sharding.strategy == Sharding::kZero3 || s.sync.sharding.strategy == Sharding::kHybrid
          ? static_cast<double>(plan.units.size())
          : 0;
  if (s.sync.strategy == SyncStrategy::kLocalSgd) {
    messages /= s.sync.local_sgd_period;
    sleeps /= s.sync.local_sgd_period;
  }
  const double buckets = static_cast<double>(plan.buckets.size());
  // Per rank and step: data wait, forward and backward per micro-batch, a backward segment and a
  // ready signal per bucket, the optimizer; a loader moves every batch through its stages. Per
  // FSDP unit: a forward and a backward segment and a wait for each of its collectives.
  // (zero3 and fsdp-hybrid have no backward segments per bucket: their units replace them.)
  const double bucket_segments = segments > 0 ? 0 : buckets;
  double compute_events = p * (micro * 3 + 2 * bucket_segments + 2 + micro * 5 * segments);
  if (!s.data.synthetic) compute_events += p * micro * 4;
  e.messages_per_step = messages;
  e.events_per_step = messages + sleeps + compute_events;

  e.platform_seconds = kPlatformSecondsPerGpu * p + kPlatformSecondsPerGpu2 * p * p;
  const double per_event =
      kSecondsPerEventSmall + kSecondsPerEventPerDoubling * std::max(0.0, std::log2(p / 128));
  const double factor =
      s.sync.strategy == SyncStrategy::kParameterServer ? ps_event_factor(s, plan, lanes) : 1.0;
  const double weighted_events = e.events_per_step + (factor - 1) * joined;
  e.wall_seconds = e.platform_seconds + per_event * weighted_events * s.training.iterations;

  double slowest = 1;
  if (s.stragglers.kind == StragglerKind::kUniform) slowest = s.stragglers.max;
  for (const auto& [rank, factor] : s.stragglers.fixed) slowest = std::max(slowest, factor);
  e.simulated_seconds =
      s.training.iterations * plan.compute.step_time(s.training.gradient_accumulation) * slowest;

  // The largest bucket's messages can all be in flight at once (chunked: one step's worth).
  double in_flight = 0;
  if (!plan.buckets.empty()) {
    // Sharded: one gather or reduce-scatter at a time per stream.
    const double per_call =
        sharded.per_rank > 0 ? messages / sharded.per_rank
                             : messages / std::max<double>(1.0, static_cast<double>(calls.size()));
    in_flight =
        s.sync.mode == CollectiveMode::kChunked ? per_call / std::max(1.0, 2 * (p - 1)) : per_call;
  }
  const double live_calls = sharded.per_rank * p / sharded.issued_in;  // queued, all ranks
  e.memory_bytes = kBaseMemoryBytes + kMemoryPerGpu * p + kMemoryPerActor * e.actors +
                   kMemoryPerInFlightMessage * in_flight + kMemoryPerShardedCall * live_calls;
  return e;
}

}  // namespace

ResourceEstimate estimate_resources(const Scenario& stated, const IterationPlan& plan,
                                    bool headline_only) {
  const Scenario s = effective_scenario(stated);
  const ScopeDecision scope = decide_scope(s, headline_only);
  const bool lanes = ps_node_lanes(s, headline_only);
  int slice = 0;
  if (!scope.symmetric) {
    ResourceEstimate e = estimate_run(s, plan, lanes);
    e.scope = scope.note;
    e.symmetric_fits = symmetry_obstacle(s, &slice).empty();
    return e;
  }
  ResourceEstimate e = estimate_run(slice_scenario(s, scope.slice_nodes), plan, lanes);
  e.gpus = s.cluster.total_gpus();
  e.scope = scope.note;
  e.symmetric_fits = true;
  return e;
}

std::string simulated_clock_overflow(double simulated_seconds, bool before_run) {
  return fmt::format(
      "{} {:.3g} s of simulated time ({}), beyond the {:.0e} s (31.7 years) ddpsim's clock "
      "resolves to the microsecond; some time or rate in the scenario is out of any realistic "
      "range (compute.step_time or samples_per_second, bandwidths, latencies, "
      "data.stall.duration, straggler factors, training.iterations)",
      before_run ? "the simulated clock would overflow: the run lasts at least"
                 : "the simulated clock overflowed: it reached",
      simulated_seconds, human_seconds(simulated_seconds), kMaxSimulatedSeconds);
}

ResourceLimits machine_limits(double max_wall_seconds) {
  ResourceLimits limits;
  // Two mappings per actor stack (the stack and its guard page), and headroom for the libraries.
  std::ifstream in("/proc/sys/vm/max_map_count");
  int64_t max_map_count = 0;
  if (in >> max_map_count && max_map_count > 4000) {
    limits.max_actors = (max_map_count - 2000) / 2;
    limits.max_actors_unguarded = max_map_count - 2000;
  }
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long page_size = ::sysconf(_SC_PAGE_SIZE);
  if (pages > 0 && page_size > 0) {
    limits.max_memory_bytes = static_cast<double>(pages) * static_cast<double>(page_size);
  }
  limits.max_wall_seconds = max_wall_seconds;
  return limits;
}

void check_resources(const Scenario& s, const ResourceEstimate& e, const ResourceLimits& limits) {
  const SourceLocation where{s.source.empty() ? std::string("<scenario>") : s.source, 0, 0};
  std::string fewer_gpus = fmt::format("simulate fewer GPUs (e.g. --set cluster.nodes={})",
                                       std::max(1, s.cluster.nodes / 2));
  // A full run that symmetry could replace: say so first (sim/cost/symmetry.h).
  if (e.symmetric_fits && e.simulated_gpus == e.gpus && e.gpus > 1)
    fewer_gpus = "set simulation.scope: symmetric (--set simulation.scope=symmetric: a slice of " +
                 std::string("whole leaves, the same per-GPU timeline), or ") + fewer_gpus;
  if (!(e.simulated_seconds <= kMaxSimulatedSeconds))
    throw InputError(where, simulated_clock_overflow(e.simulated_seconds, true));
  const int64_t max_actors = std::max(limits.max_actors, limits.max_actors_unguarded);
  if (e.actors > max_actors) {
    throw InputError(
        where,
        fmt::format("too large to simulate here: {} GPUs need about {} SimGrid actors, more than "
                    "the {} this machine allows (each actor's stack takes a memory mapping "
                    "and vm.max_map_count limits them); {}, or raise vm.max_map_count",
                    e.simulated_gpus, with_commas(static_cast<double>(e.actors)),
                    with_commas(static_cast<double>(max_actors)), fewer_gpus));
  }
  // Beyond the guarded limit the stacks lose their guard pages and take more resident memory.
  const double memory =
      e.memory_bytes + (e.actors > limits.max_actors ? kUnguardedStackBytes * e.actors : 0.0);
  std::string cheaper = fewer_gpus;
  if (s.sync.mode == CollectiveMode::kChunked &&
      collective_algorithm(s.sync.algorithm).chunked_mode &&
      s.sync.strategy != SyncStrategy::kParameterServer) {
    cheaper =
        "use --set sync.mode=flow (one flow per ring edge: the same ring time to 1e-6, "
        "O(p) instead of O(p^2) messages), or " +
        fewer_gpus;
  }
  if (limits.max_memory_bytes > 0 && memory > limits.max_memory_bytes) {
    throw InputError(where,
                     fmt::format("too large to simulate here: about {} of memory needed ({} GPUs, "
                                 "{} actors, {}), more than the {} of this machine; {}",
                                 human_bytes(memory), e.simulated_gpus,
                                 with_commas(static_cast<double>(e.actors)), e.sync_cost,
                                 human_bytes(limits.max_memory_bytes), cheaper));
  }
  if (limits.max_wall_seconds > 0 && e.wall_seconds > limits.max_wall_seconds) {
    throw InputError(
        where, fmt::format("too slow to simulate: about {} of wall time expected ({} GPUs, {} "
                           "messages per step: {}), above the limit of {}; {}, or allow it with "
                           "--max-wall SECONDS (the run then stops cleanly with partial results)",
                           human_seconds(e.wall_seconds), e.simulated_gpus,
                           with_commas(e.messages_per_step), e.sync_cost,
                           human_seconds(limits.max_wall_seconds), cheaper));
  }
}

}  // namespace ddpsim
