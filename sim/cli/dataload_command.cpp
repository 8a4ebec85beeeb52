// ddpsim dataload SCENARIO [--nodes 1,2,4,8 [--keep-node-size] | --gpus 1,2,4,8] [--set k=v]
//
// Data loading bandwidth versus training bandwidth: for each cluster size, the loader's rate per
// GPU (and the stage that limits it) beside the training rate per GPU, then the simulated
// throughput with real data, with synthetic data, and their ratio.
//   --nodes: the job's GPUs (nodes x gpus_per_node of the scenario) spread over each node count,
//            so each GPU gets a larger share of its node's storage and cores; with
//            --keep-node-size every node keeps its GPUs and the job grows instead.
//   --gpus:  that many GPUs of the scenario's node type (e.g. 1, 2, 4, 8 GPUs of one DGX-1).
//   --find cores: the smallest CPU cores per node and loader workers per GPU that keep the
//            scenario's GPUs fed (loader_advice.h), over the decode rate's range, checked by
//            simulating that count and one core fewer.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/cli/option_checks.h"
#include "sim/cli/table_output.h"
#include "sim/cost/compute_cost.h"
#include "sim/data/loader_advice.h"
#include "sim/data/loader_rates.h"
#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "sim/ledger/assumptions.h"
#include "sim/ledger/ledger.h"
#include "sim/model/model_zoo.h"
#include "sim/text/units.h"

namespace ddpsim::cli {
namespace {

struct Options {
  std::string scenario;
  std::vector<int> nodes;
  std::vector<int> gpus;
  bool keep_node_size = false;
  bool no_synthetic = false;
  std::string find;  // "cores"
  std::vector<std::string> overrides;
  TableFormat format;
} opts;

struct Shape {
  int nodes = 1;
  int gpus_per_node = 1;
};

InputError bad_option(const std::string& message) {
  return InputError({"<command line>"}, message);
}

std::vector<Shape> shapes(const Scenario& s) {
  std::vector<Shape> out;
  const int total = s.cluster.total_gpus();
  const int per_node = s.cluster.gpus_per_node;
  for (int n : opts.nodes) {
    if (opts.keep_node_size) {
      out.push_back({n, per_node});
    } else if (total % n != 0) {
      throw bad_option(
          fmt::format("--nodes {}: the job's {} GPUs do not split evenly over {} "
                      "nodes (use --keep-node-size to grow the job instead)",
                      n, total, n));
    } else {
      out.push_back({n, total / n});
    }
  }
  for (int g : opts.gpus) {
    if (g > per_node && g % per_node != 0)
      throw bad_option(
          fmt::format("--gpus {}: more than one node of {} GPUs must be a multiple "
                      "of {}",
                      g, per_node, per_node));
    out.push_back(g <= per_node ? Shape{1, g} : Shape{g / per_node, per_node});
  }
  if (out.empty()) out.push_back({s.cluster.nodes, per_node});
  return out;
}

SimulationResult run_one(const Scenario& s) {
  SimOptions options;
  options.trace = TraceGpus::none();
  options.baseline = false;
  return simulate(s, options);
}

std::string describe_data(const DataSpec& d) {
  if (d.synthetic) return "synthetic (no loading)";
  std::string storage =
      d.storage == StorageKind::kLocal
          ? "local " + units::format_bandwidth(d.storage_bandwidth) + " per node"
          : "shared " + units::format_bandwidth(d.storage_bandwidth) + " aggregate";
  if (d.storage_iops > 0) storage += fmt::format(", {:.0f} IOPS", d.storage_iops);
  if (d.page_cache_fraction > 0)
    storage += fmt::format(", page cache {:.0f} %", 100 * d.page_cache_fraction);
  const std::string decode =
      d.decode == DecodeKind::kCpu
          ? fmt::format("cpu decode {} workers/GPU x {:.0f} samples/s/core", d.workers_per_gpu,
                        d.samples_per_core)
          : "gpu decode " + units::format_duration(d.gpu_decode_time) + "/sample";
  return fmt::format("{}/sample stored, {} copied; {}; {}; prefetch {}",
                     units::format_bytes(d.sample_bytes),
                     units::format_bytes(copied_bytes_per_sample(d)), storage, decode, d.prefetch);
}

// The data wait share and bottleneck of `base` at `cores` per node, with enough workers per GPU
// that the cores, not the worker cap, decide.
SimulationResult run_with_cores(const Scenario& base, int cores, int workers) {
  Scenario s = base;
  s.cluster.cpu_cores_per_node = cores;
  s.data.workers_per_gpu = std::max(s.data.workers_per_gpu, workers);
  return run_one(s);
}

std::string where_rate_comes_from(const Scenario& s) {
  for (const LedgerEntry& e : build_ledger(s))
    if (e.row->key == std::string("data.decode.samples_per_core"))
      return e.source == InputSource::kDefault    ? "a default"
             : e.source == InputSource::kMeasured ? "measured"
                                                  : "stated in the scenario";
  return "stated";
}

int find_cores(const Scenario& base, const Model& model) {
  if (base.data.decode != DecodeKind::kCpu)
    throw InputError({base.source},
                     "--find cores: data.decode is gpu: the GPU decodes, CPU "
                     "cores do not feed it (allowed with data.decode: cpu)");
  const ComputePlan compute = plan_compute(base, model);
  const double step = compute.step_time(base.training.gradient_accumulation);
  const double train = base.training.batch_per_gpu * base.training.gradient_accumulation / step;
  const AssumptionRow* decode = find_assumption_row("data.decode.samples_per_core");
  const CoresAnswer a =
      cores_to_feed(base, train, {decode->low, decode->high}, compute.h2d_bandwidth);
  const int gpus = base.cluster.gpus_per_node;
  const std::string unit = model.sample_unit + "/s";
  const SimulationResult at = run_with_cores(base, a.cores_per_node, a.workers_per_gpu);
  const SimulationResult below = a.cores_per_node > 1
                                     ? run_with_cores(base, a.cores_per_node - 1, a.workers_per_gpu)
                                     : SimulationResult{};
  auto wait = [](const SimulationResult& r) {
    return r.iteration_time > 0 ? r.breakdown.data_wait / r.iteration_time : 0.0;
  };
  std::vector<std::string> warnings;
  if (base.data.workers_per_gpu < a.workers_per_gpu)
    warnings.push_back(fmt::format(
        "data.workers_per_gpu is {}: it caps decoding at {} cores per GPU whatever the node "
        "has; set data.workers_per_gpu: {} (or more) with these cores",
        base.data.workers_per_gpu, base.data.workers_per_gpu, a.workers_per_gpu));
  if (!a.other_limit.empty())
    warnings.push_back(fmt::format(
        "{} against {} {} trained: the store or the copy binds, no number of cores feeds "
        "the GPUs",
        a.other_limit, units::format_rate(train), unit));
  if (!opts.format.text()) {
    OutputTable table{{"train_samples_per_second_per_gpu", "samples_per_core", "cores_per_node",
                       "workers_per_gpu", "cores_per_node_fast_cpu", "cores_per_node_slow_cpu",
                       "data_wait_share", "data_wait_share_one_core_fewer", "warnings"},
                      {}};
    table.rows.push_back({train, a.per_core, a.cores_per_node, a.workers_per_gpu, a.cores_fast,
                          a.cores_slow, wait(at),
                          a.cores_per_node > 1 ? nlohmann::json(wait(below)) : nlohmann::json(),
                          fmt::format("{}", fmt::join(warnings, "; "))});
    print_table(table, opts.format);
    return 0;
  }
  std::printf("scenario  %s (%s)\n", base.name.c_str(), base.source.c_str());
  std::printf("data      %s\n\n", describe_data(base.data).c_str());
  std::printf("one GPU trains %s %s; a core decodes %s %s (data.decode.samples_per_core, %s)\n",
              units::format_rate(train).c_str(), unit.c_str(),
              units::format_rate(a.per_core).c_str(), unit.c_str(),
              where_rate_comes_from(base).c_str());
  std::printf("cores     %d per node (%d GPUs x %d loader workers) keep the GPUs fed\n",
              a.cores_per_node, gpus, a.workers_per_gpu);
  std::printf(
      "band      %d - %d cores per node for a core decoding %s - %s %s (the decode "
      "row's 0.5x-2x, docs/assumptions.md)\n",
      a.cores_fast, a.cores_slow, units::format_rate(a.rate_high).c_str(),
      units::format_rate(a.rate_low).c_str(), unit.c_str());
  std::printf("checked   %d cores: data wait %.1f %% (%s)", a.cores_per_node, 100 * wait(at),
              at.bottleneck.c_str());
  if (a.cores_per_node > 1)
    std::printf("; %d cores: data wait %.1f %% (%s)", a.cores_per_node - 1, 100 * wait(below),
                below.bottleneck.c_str());
  std::printf("\n");
  for (const std::string& w : warnings) std::printf("warning   %s\n", w.c_str());
  return 0;
}

int run() {
  if (!opts.find.empty() && (!opts.nodes.empty() || !opts.gpus.empty()))
    throw bad_option("give --find or --nodes/--gpus, not both");
  if (!opts.nodes.empty() && !opts.gpus.empty())
    throw bad_option("give --nodes or --gpus, not both");
  const Scenario base = load_scenario(opts.scenario, opts.overrides);
  if (base.data.synthetic)
    throw InputError({base.source},
                     "data.synthetic is true: dataload compares a real input "
                     "pipeline with training; write a data: section");
  Model model;
  std::string error;
  if (!build_model(base.model, &model, &error)) throw InputError({base.source}, error);
  if (!opts.find.empty()) return find_cores(base, model);

  const bool text = opts.format.text();
  const std::string unit = model.sample_unit + "/s";
  if (text) {
    std::printf("scenario  %s (%s)\n", base.name.c_str(), base.source.c_str());
    std::printf("model     %s, batch %d/GPU, %s, %d cores/node, PCIe %s/GPU\n", model.name.c_str(),
                base.training.batch_per_gpu, precision_name(base.training.precision),
                base.cluster.cpu_cores_per_node,
                units::format_bandwidth(base.cluster.pcie_bandwidth).c_str());
    std::printf("data      %s\n\n", describe_data(base.data).c_str());
    std::printf("%5s %9s %5s | %12s %-8s %12s %7s | %12s %12s %7s | %9s  %s\n", "nodes",
                "GPUs/node", "GPUs", "loader/GPU", "limit", "train/GPU", "ratio", "real",
                "synthetic", "r/s", "data wait", "bottleneck");
  }
  OutputTable table{
      {"nodes", "gpus_per_node", "gpus", "loader_samples_per_second_per_gpu", "loader_limit",
       "train_samples_per_second_per_gpu", "loader_over_train", "real_samples_per_second",
       "synthetic_samples_per_second", "real_over_synthetic", "data_wait_share", "bottleneck"},
      {}};
  // A calibration profile's measured host-to-device copy rate (profile mode only).
  const double h2d = plan_compute(base, model).h2d_bandwidth;
  std::vector<std::string> warnings;  // each once, in the order met (a worker cap, the store)
  for (const Shape& shape : shapes(base)) {
    Scenario s = base;
    s.cluster.nodes = shape.nodes;
    s.cluster.gpus_per_node = shape.gpus_per_node;
    s.cluster.nic.count = std::min(s.cluster.nic.count, shape.gpus_per_node);  // <= 1 per GPU
    // A node of GPUs the sockets do not divide (one GPU of a two-socket node) runs on one socket.
    if (shape.gpus_per_node % s.cluster.host.sockets != 0) s.cluster.host.sockets = 1;
    const LoaderRates rates = loader_rates(s.data, s.cluster, true, h2d);
    const SimulationResult real = run_one(s);
    for (const std::string& w : real.warnings)
      if (std::find(warnings.begin(), warnings.end(), w) == warnings.end()) warnings.push_back(w);
    double synthetic = 0;
    if (!opts.no_synthetic) {
      Scenario syn = s;
      syn.data.synthetic = true;
      synthetic = run_one(syn).samples_per_second;
    }
    const double wait_share =
        real.iteration_time > 0 ? real.breakdown.data_wait / real.iteration_time : 0;
    const double ratio = real.data_rate_per_gpu / real.train_rate_per_gpu;
    table.rows.push_back(
        {shape.nodes, shape.gpus_per_node, s.cluster.total_gpus(), real.data_rate_per_gpu,
         loader_stage_name(rates.limit()), real.train_rate_per_gpu,
         std::isfinite(ratio) ? nlohmann::json(ratio) : nlohmann::json(), real.samples_per_second,
         synthetic > 0 ? nlohmann::json(synthetic) : nlohmann::json(),
         synthetic > 0 ? nlohmann::json(real.samples_per_second / synthetic) : nlohmann::json(),
         wait_share, real.bottleneck});
    if (!text) continue;
    std::printf(
        "%5d %9d %5d | %12.0f %-8s %12.0f %7.2f | %12.0f %12s %7s | %7.1f %%  %s\n", shape.nodes,
        shape.gpus_per_node, s.cluster.total_gpus(), real.data_rate_per_gpu,
        loader_stage_name(rates.limit()), real.train_rate_per_gpu, ratio, real.samples_per_second,
        synthetic > 0 ? fmt::format("{:.0f}", synthetic).c_str() : "-",
        synthetic > 0 ? fmt::format("{:.3f}", real.samples_per_second / synthetic).c_str() : "-",
        100 * wait_share, real.bottleneck.c_str());
  }
  if (!text) {
    print_table(table, opts.format);
    return 0;
  }
  std::printf(
      "\nloader/GPU and train/GPU in %s per GPU: what the input pipeline sustains alone "
      "(min of storage share, decode, PCIe) and what one GPU computes without waiting; "
      "ratio = loader/train. real, synthetic: simulated %s of the whole job; r/s = "
      "real/synthetic.\n",
      unit.c_str(), unit.c_str());
  for (const std::string& w : warnings) std::printf("warning   %s\n", w.c_str());
  return 0;
}

const bool registered = register_command({
    "dataload",
    "Data loading vs training bandwidth per GPU across cluster sizes (real vs synthetic data)",
    15,
    [](CLI::App* app) {
      app->add_option("scenario", opts.scenario, "Scenario YAML file with a data: section")
          ->required();
      app->add_option("--nodes", opts.nodes,
                      "Node counts, e.g. 1,2,4,8: the SAME job (the scenario's nodes x "
                      "gpus_per_node GPUs) spread over that many nodes; the job does not grow "
                      "(--keep-node-size grows it)")
          ->delimiter(',')
          ->allow_extra_args(false)
          ->check(CLI::PositiveNumber);
      app->add_flag("--keep-node-size", opts.keep_node_size,
                    "With --nodes: keep gpus_per_node, so the job grows with the nodes");
      app->add_option("--gpus", opts.gpus, "GPU counts on the scenario's node type, e.g. 1,2,4,8")
          ->delimiter(',')
          ->allow_extra_args(false)
          ->check(CLI::PositiveNumber);
      app->add_flag("--no-synthetic", opts.no_synthetic, "Skip the synthetic-data runs");
      app->add_option("--find", opts.find,
                      "cores: the smallest CPU cores per node (and loader workers per GPU) "
                      "that keep the GPUs fed, over the decode rate's range")
          ->check(CLI::IsMember({"cores"}));
      add_repeatable(app, "--set", opts.overrides,
                     "Override a scenario value, e.g. --set data.prefetch=4 (repeatable)");
      add_table_format(app, &opts.format);
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
