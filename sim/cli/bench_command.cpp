// ddpsim bench: wall time and peak memory to simulate one ResNet-50 iteration at growing scale,
// each point in its own process (what a user's `simulate` pays, without the baseline run).
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/cli/table_output.h"
#include "sim/engine/simulation.h"
#include "sim/results/result_json.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/util/input_error.h"
#include "sim/util/isolated.h"

namespace ddpsim::cli {
namespace {

struct Options {
  std::vector<int> gpus{8, 64, 512, 1024, 4096, 8192};
  std::string model = "resnet50";
  int iterations = 1;
  TableFormat format;
} opts;

std::string bench_scenario(int gpus) {
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
)",
                     fmt::arg("model", opts.model), fmt::arg("gpus", gpus),
                     fmt::arg("nodes", gpus / per_node), fmt::arg("per_node", per_node),
                     fmt::arg("nics", per_node), fmt::arg("it", opts.iterations));
}

int run() {
  for (int gpus : opts.gpus) {
    if (gpus < 1 || (gpus > 8 && gpus % 8 != 0)) {
      throw InputError({"<--gpus>"},
                       "expected 1 to 8 GPUs or a multiple of 8 (8 GPUs per node), "
                       "got " +
                           std::to_string(gpus));
    }
  }
  const bool text = opts.format.text();
  if (text) {
    std::printf(
        "# ddpsim bench: one %s iteration (flow-mode ring, 25 MiB buckets, overlap), "
        "8 GPUs and 8 NICs per node\n",
        opts.model.c_str());
    std::printf("# %6s %6s %8s %14s %12s %10s %12s  %s\n", "gpus", "nodes", "buckets",
                "iteration(ms)", "samples/s", "wall(s)", "peakRSS(MiB)", "target");
  }
  OutputTable table{{"gpus", "nodes", "status", "buckets", "iteration_time_s", "samples_per_second",
                     "wall_s", "peak_rss_bytes", "target", "error"},
                    {}};
  int failures = 0;
  for (int gpus : opts.gpus) {
    const Scenario scenario = parse_scenario_text(bench_scenario(gpus), "<bench>");
    SimOptions sim;
    sim.trace = TraceGpus::none();
    sim.baseline = false;
    IsolatedResult child =
        run_isolated([&] { return result_to_json(run_simulation(scenario, sim)).dump(); });
    if (!child.ok) {
      table.rows.push_back({gpus, scenario.cluster.nodes, "failed", nullptr, nullptr, nullptr,
                            child.wall_seconds, child.max_rss_kib * 1024.0, nullptr,
                            child.payload});
      if (text) std::printf("  %6d  failed: %s\n", gpus, child.payload.c_str());
      ++failures;
      continue;
    }
    const SimulationResult r = result_from_json(nlohmann::json::parse(child.payload));
    std::string target = "-";
    if (gpus == 1024) target = child.wall_seconds < 1.0 ? "< 1 s: met" : "< 1 s: MISSED";
    if (gpus == 8192) target = child.wall_seconds < 10.0 ? "< 10 s: met" : "< 10 s: MISSED";
    table.rows.push_back({gpus, scenario.cluster.nodes, "ok", r.buckets.size(), r.iteration_time,
                          r.samples_per_second, child.wall_seconds, child.max_rss_kib * 1024.0,
                          target == "-" ? nlohmann::json() : nlohmann::json(target), ""});
    if (!text) continue;
    std::printf("  %6d %6d %8zu %14.3f %12.0f %10.3f %12.1f  %s\n", gpus, scenario.cluster.nodes,
                r.buckets.size(), r.iteration_time * 1e3, r.samples_per_second, child.wall_seconds,
                child.max_rss_kib / 1024.0, target.c_str());
    std::fflush(stdout);
  }
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
      add_table_format(app, &opts.format);
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
