// ddpsim nccl-tests SCENARIO [-b 8] [-e 8G] [-f 2] [--op all_reduce|reduce_scatter|all_gather]
//                   [--algorithm A] [--set k=v]
// Prints what nccl-tests would print on the scenario's cluster, predicted by the simulator, in
// nccl-tests' own format (sim/measurements/nccl_tests_format.h), so a measured run compares line by
// line and the table imports back into `ddpsim calibrate`.
#include <fmt/format.h>

#include <cstdio>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/cli/option_checks.h"
#include "sim/cost/nccl_tuning.h"
#include "sim/engine/sync_factory.h"
#include "sim/input/scenario_loader.h"
#include "sim/link_fit/collective_sweep_sim.h"
#include "sim/measurements/nccl_tests_format.h"
#include "sim/scenario/collective_algorithms.h"
#include "sim/scenario/enum_names.h"
#include "sim/text/input_error.h"
#include "sim/text/units.h"

namespace ddpsim::cli {
namespace {

struct Options {
  std::string scenario;
  std::string min_bytes = "8";
  std::string max_bytes = "8G";
  double factor = 2;
  std::string op = "all_reduce";
  std::string algorithm;
  std::vector<std::string> overrides;
} opts;

const SourceLocation kCommandLine{"<command line>", 0, 0};

std::string cluster_line(const Scenario& s) {
  const ClusterSpec& c = s.cluster;
  std::string line = fmt::format(
      "# {} node{} x {} {} = {} GPUs; {} {} ({} per message)", c.nodes, c.nodes == 1 ? "" : "s",
      c.gpus_per_node, c.gpu.name, c.total_gpus(), intra_node_name(c.intra_node.kind),
      units::format_bandwidth(c.intra_node.kind == IntraNodeKind::kPcie ? c.pcie_bandwidth
                                                                        : c.intra_node.bandwidth),
      units::format_duration(c.intra_node.latency));
  if (c.nodes > 1)
    line += fmt::format("; {} x {} NIC{} ({} per message)", c.nic.count,
                        units::format_bandwidth(c.nic.bandwidth), c.nic.count == 1 ? "" : "s",
                        units::format_duration(c.nic.latency));
  if (!c.calibration.empty()) line += "; links from " + c.calibration;
  return line + "\n";
}

int run() {
  Scenario scenario = load_scenario(opts.scenario, opts.overrides);
  const auto op = parse_collective_op_key(opts.op);
  if (!op || !collective_is_modelled(*op))
    throw InputError(kCommandLine, "--op: " +
                                       (op ? "the model has no " + opts.op + " yet"
                                           : "unknown collective '" + opts.op + "'") +
                                       "; collectives it simulates: " + modelled_collectives());
  if (!opts.algorithm.empty()) {
    const auto algorithm = enum_from_name<AllReduceAlgorithm>(opts.algorithm);
    if (!algorithm)
      throw InputError(kCommandLine, "--algorithm: unknown algorithm '" + opts.algorithm +
                                         "'; allowed: " + enum_choices<AllReduceAlgorithm>());
    scenario.sync.algorithm = *algorithm;
    const CollectiveAlgorithm& row = collective_algorithm(*algorithm);
    const std::string unsupported = *algorithm == AllReduceAlgorithm::kNvls
                                        ? nvls_unsupported_reason(scenario.cluster)
                                    : row.unsupported != nullptr ? row.unsupported(scenario.cluster)
                                                                 : "";
    if (!unsupported.empty()) throw InputError(kCommandLine, "--algorithm " + unsupported);
  }
  const CollectiveAlgorithm& row = collective_algorithm(scenario.sync.algorithm);
  if (*op != CollectiveOp::kAllReduce && row.sharded == ShardedRun::kRefused)
    throw InputError(kCommandLine, "--op " + opts.op + ": " + row.name +
                                       " is modelled for all_reduce only; use --algorithm "
                                       "ring or auto (NCCL's ring) for " +
                                       opts.op);
  if (*op == CollectiveOp::kAllReduce && !row.all_reduce)
    throw InputError(kCommandLine, "--op all_reduce: " + std::string(row.name) +
                                       " prices all_gather and reduce_scatter only; use "
                                       "--algorithm " +
                                       all_reduce_algorithm_names() + " for all_reduce");
  // A collective moves data between GPUs: on one there is nothing to time (rows of zero time).
  if (scenario.cluster.total_gpus() < 2)
    throw InputError(kCommandLine,
                     fmt::format("a collective needs at least 2 GPUs; the scenario's cluster has "
                                 "{} (raise cluster.gpus_per_node or cluster.nodes)",
                                 scenario.cluster.total_gpus()));
  // One actor and a route per GPU, a platform built in time quadratic in the GPUs (55 s at 32 k,
  // DESIGN.md): beyond this many a sweep would run for many minutes (docs/reliability.md).
  constexpr int kMaxGpus = 16384;
  if (scenario.cluster.total_gpus() > kMaxGpus)
    throw InputError(kCommandLine,
                     fmt::format("the cluster has {} GPUs; nccl-tests simulates at most {} "
                                 "(a platform of more takes minutes to build; predict a smaller "
                                 "cluster and extrapolate, docs/calibration.md)",
                                 scenario.cluster.total_gpus(), kMaxGpus));
  const double min_bytes = nccl_tests_size_option("-b", opts.min_bytes);
  const double max_bytes = nccl_tests_size_option("-e", opts.max_bytes);
  // nccl-tests multiplies the size by -f: from 0 it never grows (an endless list of empty rows).
  if (min_bytes < 4)
    throw InputError(kCommandLine,
                     "-b: at least 4 bytes (one float element; from 0 the sizes "
                     "never grow with -f), got '" +
                         opts.min_bytes + "'");
  if (max_bytes < min_bytes)
    throw InputError(kCommandLine, "-e: the largest size must be at least -b (" + opts.min_bytes +
                                       "), got '" + opts.max_bytes + "'");
  const std::vector<double> sizes = nccl_tests_sizes(min_bytes, max_bytes, opts.factor);
  if (sizes.size() > 64)
    throw InputError(kCommandLine,
                     fmt::format("-b {} -e {} -f {:g} gives {} sizes; at most 64 "
                                 "(raise -f)",
                                 opts.min_bytes, opts.max_bytes, opts.factor, sizes.size()));
  // A measured table answers only for the sizes it measured (profile/alpha_beta_use.h).
  std::vector<Bucket> buckets;
  for (double b : sizes) buckets.push_back(Bucket{{}, b, 0});
  // (A table has all_reduce rows only; make_collective refuses it for the others.)
  const std::vector<std::string> warnings = *op == CollectiveOp::kAllReduce
                                                ? alpha_beta_warnings(scenario, buckets)
                                                : std::vector<std::string>{};

  const std::vector<SimulatedCollective> sweep = simulate_collective_sweep(scenario, *op, sizes);
  std::vector<CollectiveSample> samples;
  for (const SimulatedCollective& c : sweep) samples.push_back({c.bytes, c.seconds, 0});

  const ClusterSpec& c = scenario.cluster;
  std::string out =
      fmt::format("# ddpsim prediction of {}_perf -b {:.0f} -e {:.0f} -f {:g} on {}\n",
                  collective_op_key(*op), min_bytes, max_bytes, opts.factor, scenario.source);
  out += cluster_line(scenario);
  out += fmt::format(
      "# {} {} ({})\n", collective_op_key(*op),
      sweep.empty() ? algorithm_name(scenario.sync.algorithm) : sweep.back().algorithm.c_str(),
      scenario.sync.mode == CollectiveMode::kFlow ? "flow mode" : "chunked mode");
  for (const std::string& w : warnings) out += "# warning: " + w + "\n";
  out += fmt::format(
      "# nThread 1 nGpus 1 minBytes {:.0f} maxBytes {:.0f} step: {:g}(factor) warmup iters: 0 "
      "iters: 1 agg iters: 1 validation: 0 graph: 0\n#\n# Using devices\n",
      min_bytes, max_bytes, opts.factor);
  for (int rank = 0; rank < c.total_gpus(); ++rank)
    out += fmt::format("#  Rank {:2d} Group  0 on {:>10} device {:2d} [sim] {}\n", rank,
                       "node" + std::to_string(rank / c.gpus_per_node), rank % c.gpus_per_node,
                       c.gpu.name);
  out += "#\n" + format_nccl_tests_table(*op, c.total_gpus(), samples);
  std::fputs(out.c_str(), stdout);
  return kExitOk;
}

const bool registered = register_command({
    "nccl-tests",
    "Predict what nccl-tests prints on the scenario's cluster (size, count, type, redop, root, "
    "time, algbw, busbw)",
    45,
    [](CLI::App* app) {
      app->add_option("scenario", opts.scenario, "Scenario YAML file (its cluster and sync keys)")
          ->required();
      app->add_option("-b,--minbytes", opts.min_bytes,
                      "Smallest size, as nccl-tests takes it (8, 64K, 1M, 8G; default 8)");
      app->add_option("-e,--maxbytes", opts.max_bytes, "Largest size (default 8G)");
      app->add_option("-f,--stepfactor", opts.factor, "Size multiplier per step (default 2)")
          ->check(finite_number(1.0001))
          ->check(CLI::Range(1.0001, 1024.0));
      app->add_option("--op", opts.op,
                      "Collective: all_reduce (default), all_gather, reduce_scatter");
      app->add_option("--algorithm", opts.algorithm,
                      "Algorithm instead of the scenario's sync.algorithm");
      app->add_option("--set", opts.overrides,
                      "Override a scenario value, e.g. --set cluster.nodes=64 (repeatable)");
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
