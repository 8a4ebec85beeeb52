// ddpsim bench: wall time and peak memory to simulate one iteration (ResNet-50, or --model; with
// --set sync.sharding=... a sharded run) at growing scale,
// each point in its own process (what a user's `simulate` pays, without the baseline run), in
// the full and the symmetric scope (sim/cost/symmetry.h), with symmetric's deviation from full
// where full runs. A full point the resource guard refuses is reported, not run. --set varies
// the bench scenario (stragglers, synchronisation) as simulate's --set does. --uncertainty [N]:
// the rows of the uncertainty targets instead (bench_uncertainty.h).
#include <fmt/format.h>
#include <fmt/printf.h>

#include <cstdio>
#include <string>
#include <vector>

#include "sim/cli/bench_uncertainty.h"
#include "sim/cli/bench_workloads.h"
#include "sim/cli/command.h"
#include "sim/cli/option_checks.h"
#include "sim/cli/table_output.h"
#include "sim/cost/iteration_plan.h"
#include "sim/cost/resource_estimate.h"
#include "sim/cost/symmetry.h"
#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "sim/model/model_zoo.h"
#include "sim/process/isolated.h"
#include "sim/results/result_json.h"
#include "sim/scenario/enum_names.h"
#include "sim/text/input_error.h"

namespace ddpsim::cli {
namespace {

// --iterations: the bench times the simulator on one iteration; 100 is already a long run at
// 16,384 GPUs (docs/reliability.md).
constexpr int kMaxIterations = 100;

struct Options {
  std::vector<int> gpus{8, 64, 512, 4096, 16384, 131072};
  std::string model = "resnet50";
  int iterations = 1;
  std::string scope = "both";          // full, symmetric or both
  bool vs_full = false;                // also run full where it fits, and report the deviation
  std::vector<std::string> overrides;  // --set: the bench scenario varied (stragglers, sync...)
  TableFormat format;
  UncertaintyFlags uncertainty;  // --uncertainty [N]: the issue-25 rows
  int jobs = 2;                  // their -j
  bool workloads = false;        // --workloads: the commands users run (issue 33)
  bool heavy = false;            // --heavy: with them, the rows that take minutes
} opts;

std::string bench_scenario(int gpus, const char* scope) {
  const int per_node = gpus < 8 ? gpus : 8;
  return fmt::format(R"(name: bench-{model}-{gpus}
cluster:
  nodes: {nodes}
  gpus_per_node: {per_node}
  gpu: a100-sxm-40gb
  intra_node: {{kind: nvswitch, bandwidth: 300GB/s, latency: 1us}}
  pcie: 32GB/s
  nic: {{count: {nics}, bandwidth: 200Gbps, latency: 2us}}
  fabric: {{kind: leaf-spine, nodes_per_leaf: 16, oversubscription: 1}}
model: {{name: {model}}}
training: {{batch_per_gpu: 64, precision: fp16, optimizer: momentum, iterations: {it}, warmup: 0}}
sync: {{strategy: allreduce, algorithm: ring, bucket_cap: 25MiB, overlap: true}}
compute: {{mode: roofline, efficiency: 0.45}}
simulation: {{scope: {scope}}}
)",
                     fmt::arg("model", opts.model), fmt::arg("gpus", gpus),
                     fmt::arg("nodes", gpus / per_node), fmt::arg("per_node", per_node),
                     fmt::arg("nics", per_node), fmt::arg("it", opts.iterations),
                     fmt::arg("scope", scope));
}

// The issue-16 targets (DDP, docs/performance.md) and issue-27 targets (sharded: Llama-2-7B,
// docs/scale.md) on one core of the build machine.
std::string target(int gpus, bool symmetric, double wall, double rss_bytes, Sharding sharding) {
  auto verdict = [](bool met, const char* what) {
    return std::string(what) + (met ? ": met" : ": MISSED");
  };
  if (sharding != Sharding::kNone) {
    const bool fsdp = sharding == Sharding::kZero3 || sharding == Sharding::kHybrid;
    if (symmetric && gpus == 16384 && fsdp)
      return verdict(wall <= 10 && rss_bytes <= 1024.0 * 1024 * 1024, "<= 10 s, <= 1 GiB");
    if (symmetric && gpus == 131072 && fsdp)
      return verdict(wall <= 60 && rss_bytes <= 1024.0 * 1024 * 1024, "<= 60 s, <= 1 GiB");
    if (!symmetric && gpus == 4096 && sharding == Sharding::kZero3)
      return verdict(wall <= 30, "<= 30 s");
    if (!symmetric && gpus == 512 && sharding == Sharding::kZero1)
      return verdict(wall <= 5, "<= 5 s");
    return "-";
  }
  if (symmetric && gpus == 16384) return verdict(wall <= 10, "<= 10 s");
  if (symmetric && gpus == 131072)
    return verdict(wall <= 60 && rss_bytes <= 1024.0 * 1024 * 1024, "<= 60 s, <= 1 GiB");
  if (!symmetric && gpus == 1024) return verdict(wall < 1, "< 1 s");
  if (!symmetric && gpus == 8192) return verdict(wall < 10, "< 10 s");
  if (!symmetric && gpus == 16384) return verdict(wall <= 60, "<= 60 s");
  return "-";
}

struct Row {
  int gpus = 0, nodes = 0, simulated_nodes = 0;
  const char* scope = "";
  std::string status, error, target = "-";
  SimulationResult result;
  IsolatedResult child;
  double vs_full = 0;
  bool has_vs_full = false;
};

// Runs one point in its own process; a full run the resource guard refuses, or a symmetric one
// the scenario does not fit, is reported as such without running.
Row run_point(int gpus, const char* scope) {
  Row row;
  row.gpus = gpus;
  row.scope = scope;
  const Scenario scenario =
      parse_scenario_text(bench_scenario(gpus, scope), "<bench>", opts.overrides);
  row.nodes = scenario.cluster.nodes;
  const bool symmetric = std::string(scope) == "symmetric";
  int slice = 0;
  const std::string obstacle = symmetry_obstacle(scenario, &slice);
  row.simulated_nodes = symmetric ? slice : row.nodes;
  if (symmetric && !obstacle.empty()) {
    row.status = "n/a";
    row.error = obstacle;
    return row;
  }
  if (!symmetric) {
    try {
      const Model model = [&] {
        Model m;
        std::string error;
        if (!build_model(scenario.model, &m, &error)) throw InputError({}, error);
        return m;
      }();
      check_resources(scenario, estimate_resources(scenario, build_iteration_plan(scenario, model)),
                      machine_limits(0));
    } catch (const InputError& e) {
      row.status = "refused";
      row.error = e.message();
      return row;
    }
  }
  SimOptions sim;
  sim.trace = TraceGpus::none();
  sim.baseline = false;
  row.child = run_isolated([&] { return result_to_json(run_simulation(scenario, sim)).dump(); });
  if (!row.child.ok) {
    row.status = "failed";
    row.error = row.child.payload;
    return row;
  }
  row.status = "ok";
  row.result = result_from_json(nlohmann::json::parse(row.child.payload));
  row.target = target(gpus, symmetric, row.child.wall_seconds, row.child.max_rss_kib * 1024.0,
                      scenario.sync.sharding.strategy);
  return row;
}

// The text table, printed only once every point ran: a bench that fails part way leaves nothing
// half-written on stdout.
std::string text_out;

template <class... Args>
void print(const char* format, Args... args) {
  text_out += fmt::sprintf(format, args...);
}

void print_row(const Row& r) {
  if (r.status != "ok") {
    // A refusal's first clause says why; its alternatives (--json has them) would fill screens.
    const std::string why = r.status == "refused" ? r.error.substr(0, r.error.find(';')) : r.error;
    print("  %6d %6d %-9s %9s  %s: %s\n", r.gpus, r.nodes, r.scope, "-", r.status.c_str(),
          why.c_str());
    return;
  }
  const std::string vs = r.has_vs_full ? fmt::format("{:+.1e}", r.vs_full) : "-";
  print("  %6d %6d %-9s %9d %8zu %14.3f %12.0f %10.3f %12.1f %9s  %s\n", r.gpus, r.nodes, r.scope,
        r.simulated_nodes, r.result.buckets.size(), r.result.iteration_time * 1e3,
        r.result.samples_per_second, r.child.wall_seconds, r.child.max_rss_kib / 1024.0, vs.c_str(),
        r.target.c_str());
}

// The keys the bench sets for every point: a --set of one would contradict the table's header
// (another model runs than it names) or be overridden without a word.
void check_overrides() {
  static const std::pair<const char*, const char*> kBenchKeys[] = {
      {"model", "--model"},
      {"cluster.nodes", "--gpus"},
      {"cluster.gpus_per_node", "--gpus"},
      {"cluster", "--gpus"},
      {"training.iterations", "--iterations"},
      {"simulation.scope", "--scope"},
      {"simulation", "--scope"},
      {"training", "--iterations"}};
  for (const std::string& o : opts.overrides) {
    const std::string key = o.substr(0, o.find('='));
    for (const auto& [bench_key, option] : kBenchKeys) {
      const std::string k = bench_key;
      // A whole section ("cluster={...}") replaces what the bench sets; a key inside it
      // (cluster.nic.count) is fine unless it is one of the bench's own.
      const bool section = k.find('.') == std::string::npos && k != "model";
      if (section ? key == k : (key == k || key.rfind(k + ".", 0) == 0))
        throw InputError({"<--set " + o + ">"},
                         fmt::format("{}: the bench sets it for every point (give {} instead); "
                                     "allowed: the other keys of the bench scenario, e.g. "
                                     "stragglers.sigma, sync.algorithm, cluster.nic.bandwidth",
                                     key, option));
    }
  }
}

int run() {
  text_out.clear();
  if (opts.heavy && !opts.workloads)
    throw InputError({"<--heavy>"}, "--heavy adds rows to --workloads; give both");
  if (opts.workloads && opts.uncertainty.given())
    throw InputError({"<--workloads>"},
                     "--workloads and --uncertainty are two different benches; give one");
  if (opts.workloads) return bench_workloads(opts.format, opts.jobs, opts.heavy);
  if (opts.uncertainty.given())
    return bench_uncertainty(opts.format, opts.jobs, opts.uncertainty.samples(),
                             opts.uncertainty.seed);
  if (opts.iterations > kMaxIterations)
    throw InputError({"<--iterations>"},
                     fmt::format("at most {} (the bench times one iteration per point; more "
                                 "multiply every point's time), got {}",
                                 kMaxIterations, opts.iterations));
  bool known = false;
  std::string keys;
  for (const ZooEntry& z : model_zoo()) {
    known = known || z.key == opts.model;
    keys += (keys.empty() ? "" : ", ") + z.key;
  }
  if (!known)
    throw InputError({"<--model>"},
                     "unknown model '" + opts.model + "'; the bench takes a zoo key: " + keys);
  check_overrides();
  for (int gpus : opts.gpus) {
    if (gpus < 1 || (gpus > 8 && gpus % 8 != 0)) {
      throw InputError({"<--gpus>"},
                       "expected 1 to 8 GPUs or a multiple of 8 (8 GPUs per node), "
                       "got " +
                           std::to_string(gpus));
    }
  }
  std::vector<const char*> scopes;
  if (opts.scope != "symmetric" || opts.vs_full) scopes.push_back("full");
  if (opts.scope != "full" || opts.vs_full) scopes.push_back("symmetric");
  const bool text = opts.format.text();
  if (text) {
    const Scenario first =
        parse_scenario_text(bench_scenario(8, "full"), "<bench>", opts.overrides);
    const std::string sharding =
        first.sync.sharding.strategy == Sharding::kNone
            ? ""
            : std::string(", sharding ") + enum_name(first.sync.sharding.strategy);
    print(
        "# ddpsim bench: one %s iteration (flow-mode ring, 25 MiB buckets, overlap%s), "
        "8 GPUs and 8 NICs per node, 16 nodes per leaf; vs-full: symmetric's iteration time "
        "against full's\n",
        opts.model.c_str(), sharding.c_str());
    print("# %6s %6s %-9s %9s %8s %14s %12s %10s %12s %9s  %s\n", "gpus", "nodes", "scope",
          "simulated", "buckets", "iteration(ms)", "samples/s", "wall(s)", "peakRSS(MiB)",
          "vs-full", "target");
  }
  OutputTable table{
      {"gpus", "nodes", "scope", "simulated_nodes", "status", "buckets", "iteration_time_s",
       "samples_per_second", "wall_s", "peak_rss_bytes", "vs_full", "target", "error"},
      {}};
  int failures = 0;
  for (int gpus : opts.gpus) {
    double full_time = 0;
    for (const char* scope : scopes) {
      Row row = run_point(gpus, scope);
      if (row.status == "failed") ++failures;
      const bool ok = row.status == "ok";
      if (ok && std::string(scope) == "full") full_time = row.result.iteration_time;
      if (ok && std::string(scope) == "symmetric" && full_time > 0) {
        row.has_vs_full = true;
        row.vs_full = (row.result.iteration_time - full_time) / full_time;
      }
      if (text) print_row(row);
      auto value = [ok](auto v) { return ok ? nlohmann::json(v) : nlohmann::json(); };
      table.rows.push_back(
          {gpus, row.nodes, scope, row.simulated_nodes, row.status,
           value(row.result.buckets.size()), value(row.result.iteration_time),
           value(row.result.samples_per_second),
           row.status == "ok" || row.status == "failed" ? nlohmann::json(row.child.wall_seconds)
                                                        : nlohmann::json(),
           row.status == "ok" || row.status == "failed"
               ? nlohmann::json(row.child.max_rss_kib * 1024.0)
               : nlohmann::json(),
           row.has_vs_full ? nlohmann::json(row.vs_full) : nlohmann::json(),
           row.target == "-" ? nlohmann::json() : nlohmann::json(row.target), row.error});
    }
  }
  if (text) std::fputs(text_out.c_str(), stdout);
  if (!text) print_table(table, opts.format);
  return failures ? kExitFailure : 0;
}

const bool registered = register_command({
    "bench",
    "Benchmark the simulator itself: wall time and peak memory per cluster size",
    90,
    [](CLI::App* app) {
      app->add_option("--gpus", opts.gpus, "GPU counts to simulate")
          ->delimiter(',')
          ->allow_extra_args(false);
      app->add_option("--model", opts.model, "Model zoo key");
      app->add_option("--iterations", opts.iterations, "Simulated iterations per point")
          ->check(CLI::PositiveNumber);
      app->add_option("--scope", opts.scope,
                      "full: every GPU simulated; symmetric: two leaves, the rest folded in "
                      "(simulation.scope); both: each size both ways")
          ->check(CLI::IsMember({"full", "symmetric", "both"}));
      app->add_flag("--vs-full", opts.vs_full,
                    "Run full too where the resource guard lets it, and report symmetric's "
                    "deviation from it");
      add_repeatable(app, "--set", opts.overrides,
                     "Override a value of the bench scenario, e.g. --set stragglers.sigma=0.1 "
                     "(repeatable)");
      add_table_format(app, &opts.format);
      add_uncertainty_options(app, &opts.uncertainty,
                              "Instead, time simulate --uncertainty of default.yaml at 64 nodes "
                              "and compare --uncertainty of its five strategies (the issue-25 "
                              "targets: 10 s and 60 s)");
      app->add_flag("--workloads", opts.workloads,
                    "Instead, time the commands users run on Llama-3-8B (a 128-GPU sweep point), "
                    "the slowest bundled scenario and a 128-GPU parameter-server job's headline "
                    "figures, with their CPU time and peak memory");
      app->add_flag("--heavy", opts.heavy,
                    "With --workloads: also the rows that take minutes (compare --uncertainty 32, "
                    "sweep points at 512 and 1,024 GPUs, the banded sweep, validate "
                    "--uncertainty 8, the parameter-server job with its links)");
      add_jobs_option(app, &opts.jobs,
                      "With --uncertainty or --workloads: the -j of each timed command");
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
