// ddpsim compare SCENARIO [--models a,b] [--nic 10Gbps,...] [--strategies ring,ps:4,...]
//                         [--set key=value ...] [--csv FILE]
//
// "Parameter server or all-reduce, which algorithm, for my model on my network?": simulates every
// (model, NIC bandwidth, strategy) cell of the scenario through the same --set overrides a user
// would type, one simulate() per cell, and prints samples/s and scaling efficiency as a pivot
// table (rows: model x NIC, columns: strategies; * marks each row's fastest).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/cli/option_checks.h"
#include "sim/cost/iteration_plan.h"
#include "sim/cost/resource_estimate.h"
#include "sim/engine/simulation.h"
#include "sim/model/model_zoo.h"
#include "sim/scenario/enum_names.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/util/atomic_file.h"
#include "sim/util/input_error.h"
#include "sim/util/output_folder.h"
#include "sim/util/units.h"

namespace ddpsim::cli {
namespace {

struct Options {
  std::string scenario;
  std::vector<std::string> models;
  std::vector<std::string> nics;
  std::vector<std::string> strategies{"ring", "hierarchical", "ps:1", "ps:4", "ps:8"};
  std::vector<std::string> overrides;
  std::string csv;
} opts;

const char* kStrategyHelp =
    "ALGORITHM (ring, tree, halving-doubling, hierarchical, auto: all-reduce), horovod (ring with "
    "Horovod's tensor fusion), priority (ring with ByteScheduler's priority order), "
    "ps:K[:dedicated|:colocated|:byteps][:async:S][:priority] (K parameter servers; byteps: K "
    "CPU servers beside one on every node), byteps[:K] (BytePS as it runs: a server on every "
    "node plus K CPU machines, hashed 4096000-byte partitions, optimizer on the workers), "
    "local-sgd:K (average every K steps), ddp|zero1|zero2|zero3|fsdp-hybrid[:ckpt][:post|:none] "
    "(sharded data parallelism over the scenario's algorithm; ckpt adds activation "
    "checkpointing, post/none FSDP's backward prefetch), sharding (all five)";

const char* kShardings[] = {"ddp", "zero1", "zero2", "zero3", "fsdp-hybrid"};

// The --set overrides that select one strategy token.
std::vector<std::string> strategy_overrides(const std::string& token) {
  auto bad = [&](const std::string& why) {
    throw InputError({"<--strategies " + token + ">", 0, 0},
                     why + "; expected " + std::string(kStrategyHelp));
  };
  std::vector<std::string> parts;
  for (size_t at = 0;;) {
    const size_t colon = token.find(':', at);
    parts.push_back(token.substr(at, colon == std::string::npos ? colon : colon - at));
    if (colon == std::string::npos) break;
    at = colon + 1;
  }
  // A whole number >= `least` written in decimal digits.
  auto count = [&](const std::string& text, const char* what, int least) {
    if (text.empty() || text.size() > 9 ||
        text.find_first_not_of("0123456789") != std::string::npos || std::stoll(text) < least)
      bad(std::string("bad ") + what + " '" + text + "'");
    return text;
  };
  // Each option of a strategy once: with two (zero3:post:none, ps:4:dedicated:colocated) the
  // last would win without a word.
  auto slot = [](const std::string& part) -> std::string {
    if (part == "post" || part == "none" || part == "pre") return "backward prefetch policy";
    if (part == "dedicated" || part == "colocated" || part == "byteps") return "placement";
    if (part == "async" || part == "sync") return "mode";
    return part;  // ckpt, priority: a repeat is the same slot too
  };
  for (size_t i = 1; i < parts.size(); ++i)
    for (size_t j = 1; j < i; ++j)
      if (slot(parts[i]) == slot(parts[j]) && !parts[i].empty() &&
          parts[i].find_first_not_of("0123456789") != std::string::npos)
        bad("'" + parts[j] + "' and '" + parts[i] + "' are both a " + slot(parts[i]) +
            "; give one");
  const bool ddp = parts[0] == "ddp";
  if (ddp || (enum_from_name<Sharding>(parts[0]) && parts[0] != "none")) {
    std::vector<std::string> set = {"sync.strategy=allreduce",
                                    "sync.sharding=" + (ddp ? std::string("none") : parts[0]),
                                    "sync.schedule=fifo"};
    for (size_t i = 1; i < parts.size(); ++i) {
      if (parts[i] == "ckpt")
        set.push_back("training.activation_checkpointing=true");
      else if (parts[i] == "post" || parts[i] == "none" || parts[i] == "pre")
        set.push_back("sync.fsdp.backward_prefetch=" + parts[i]);
      else
        bad("unknown sharding option '" + parts[i] + "'");
    }
    return set;
  }
  if (enum_from_name<AllReduceAlgorithm>(parts[0]) && parts.size() == 1)
    return {"sync.strategy=allreduce", "sync.algorithm=" + parts[0]};
  // Horovod's defaults since 0.21 (horovod/common/operations.cc): 128 MiB buffers, 1 ms cycle.
  if (parts[0] == "horovod" && parts.size() == 1)
    return {"sync.strategy=allreduce", "sync.algorithm=ring", "sync.schedule=fifo",
            "sync.fusion.threshold=128MiB", "sync.fusion.cycle_time=1ms"};
  if (parts[0] == "priority" && parts.size() == 1)
    return {"sync.strategy=allreduce", "sync.algorithm=ring", "sync.schedule=priority"};
  if (parts[0] == "byteps" && parts.size() <= 2)
    return {"sync.strategy=ps",
            "sync.ps.placement=byteps",
            "sync.ps.servers=" +
                (parts.size() == 2 ? count(parts[1], "CPU server count", 0) : std::string("0")),
            "sync.ps.key_placement=hash",
            "sync.ps.update=worker",
            "sync.ps.pull=eager",
            "sync.bucket_cap=0",
            "sync.partition=4096000B"};
  if (parts[0] == "local-sgd" && parts.size() == 2)
    return {"sync.strategy=local-sgd", "sync.local_sgd.period=" + count(parts[1], "period", 1)};
  if (parts[0] == "ps" && parts.size() >= 2) {
    const bool byteps = std::find(parts.begin() + 2, parts.end(), "byteps") != parts.end();
    const std::string servers =
        byteps ? count(parts[1], "CPU server count", 0) : count(parts[1], "server count", 1);
    std::vector<std::string> set = {"sync.strategy=ps", "sync.ps.servers=" + servers};
    for (size_t i = 2; i < parts.size(); ++i) {
      if (parts[i] == "dedicated" || parts[i] == "colocated" || parts[i] == "byteps") {
        set.push_back("sync.ps.placement=" + parts[i]);
      } else if (parts[i] == "async" && i + 1 < parts.size()) {
        set.push_back("sync.ps.mode=async");
        set.push_back("sync.ps.staleness=" + count(parts[++i], "staleness", 0));
      } else if (parts[i] == "sync") {
        set.push_back("sync.ps.mode=sync");
      } else if (parts[i] == "priority") {
        set.push_back("sync.schedule=priority");
      } else {
        bad("unknown ps option '" + parts[i] + "'");
      }
    }
    return set;
  }
  bad("unknown strategy");
  return {};
}

// Refuses, before anything runs, a cell this machine cannot simulate within an hour (the guard
// simulate and sweep apply, resource_estimate.h): `ps:100000` used to run without end.
void check_cell_resources(const Scenario& scenario, const std::string& strategy) {
  Model model;
  std::string error;
  if (!build_model(scenario.model, &model, &error))
    throw InputError({scenario.source, 0, 0}, error);
  try {
    check_resources(scenario, estimate_resources(scenario, build_iteration_plan(scenario, model)),
                    machine_limits(3600));
  } catch (const InputError& e) {
    throw InputError(e.where(), "--strategies " + strategy + ": " + e.message());
  }
}

struct Cell {
  double samples_per_second = 0;
  double efficiency = 0;
  double memory = 0;  // bytes per GPU
  bool fits = true;
  int max_batch = 0;
};

std::string with_commas(double v) {
  std::string s = fmt::format("{:.0f}", v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(i, ",");
  return s;
}

int run() {
  const Scenario base = load_scenario(opts.scenario, opts.overrides);
  if (!opts.csv.empty()) check_output_file(opts.csv, "--csv");
  const std::vector<std::string> models =
      opts.models.empty() ? std::vector<std::string>{base.model.name} : opts.models;
  const std::vector<std::string> nics =
      opts.nics.empty() ? std::vector<std::string>{""} : opts.nics;
  // "sharding" stands for every sharding strategy.
  std::vector<std::string> strategies;
  for (const std::string& token : opts.strategies) {
    if (token == "sharding")
      strategies.insert(strategies.end(), std::begin(kShardings), std::end(kShardings));
    else
      strategies.push_back(token);
  }
  opts.strategies = strategies;
  bool sharding = false;
  std::vector<std::vector<std::string>> strategy_sets;
  for (const std::string& token : opts.strategies) {
    strategy_sets.push_back(strategy_overrides(token));
    for (const std::string& set : strategy_sets.back())
      if (set.rfind("sync.sharding=", 0) == 0) sharding = true;
  }

  // Every cell's scenario is loaded (and so validated) before the first simulation runs.
  struct Job {
    size_t model, nic, strategy;
    Scenario scenario;
  };
  std::vector<Job> jobs;
  std::map<size_t, Scenario> baselines;  // per model: the single GPU alone
  for (size_t m = 0; m < models.size(); ++m)
    for (size_t n = 0; n < nics.size(); ++n)
      for (size_t k = 0; k < strategy_sets.size(); ++k) {
        std::vector<std::string> set = opts.overrides;
        // Without --models the scenario's own model (a zoo key, a file or a config.json).
        if (!opts.models.empty()) set.push_back("model.name=" + models[m]);
        if (!nics[n].empty()) set.push_back("cluster.nic.bandwidth=" + nics[n]);
        set.insert(set.end(), strategy_sets[k].begin(), strategy_sets[k].end());
        jobs.push_back({m, n, k, load_scenario(opts.scenario, set)});
        check_cell_resources(jobs.back().scenario, opts.strategies[k]);
        if (!baselines.count(m)) baselines.emplace(m, single_gpu_baseline(jobs.back().scenario));
      }

  std::map<size_t, double> single;  // per model: single-GPU samples/s
  for (const auto& [m, scenario] : baselines) {
    std::fprintf(stderr, "baseline %s on one GPU ...\n", models[m].c_str());
    single[m] = simulate(scenario, {TraceGpus::none(), false}).samples_per_second;
  }
  std::vector<std::vector<Cell>> table(models.size() * nics.size(),
                                       std::vector<Cell>(strategy_sets.size()));
  std::string csv =
      "model,nic,strategy,gpus,samples_per_second,scaling_efficiency,"
      "iteration_time_s,exposed_comm_share,bottleneck,memory_bytes,fits,max_batch\n";
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    std::fprintf(stderr, "[%zu/%zu] %s %s %s ...\n", i + 1, jobs.size(), models[job.model].c_str(),
                 nics[job.nic].c_str(), opts.strategies[job.strategy].c_str());
    const SimulationResult r = simulate(job.scenario, {TraceGpus::none(), false});
    Cell& cell = table[job.model * nics.size() + job.nic][job.strategy];
    cell.samples_per_second = r.samples_per_second;
    const double one = single[job.model];
    cell.efficiency = one > 0 ? r.samples_per_second / (r.gpus * one) : 0;
    cell.memory = r.memory.total;
    cell.fits = r.memory.fits;
    cell.max_batch = r.memory.max_batch_that_fits;
    csv +=
        fmt::format("{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{},{:.0f},{},{}\n", models[job.model],
                    nics[job.nic], opts.strategies[job.strategy], r.gpus, r.samples_per_second,
                    cell.efficiency, r.iteration_time, r.exposed_comm_share, r.bottleneck,
                    cell.memory, cell.fits ? 1 : 0, cell.max_batch);
  }

  const ClusterSpec& c = base.cluster;
  std::printf(
      "%s: %d node%s x %d %s = %d GPUs, batch %d/GPU; samples/s (scaling efficiency "
      "against one GPU)%s, * = fastest in the row%s\n\n",
      base.name.c_str(), c.nodes, c.nodes == 1 ? "" : "s", c.gpus_per_node, c.gpu.name.c_str(),
      c.total_gpus(), base.training.batch_per_gpu, sharding ? " and memory per GPU" : "",
      sharding ? " that fits; OOM: does not fit in memory" : "");
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"model", "NIC"};
  header.insert(header.end(), opts.strategies.begin(), opts.strategies.end());
  rows.push_back(header);
  for (size_t m = 0; m < models.size(); ++m)
    for (size_t n = 0; n < nics.size(); ++n) {
      const std::vector<Cell>& cells = table[m * nics.size() + n];
      // A configuration that does not fit in memory cannot be the fastest (it cannot run).
      double best = 0;
      for (const Cell& cell : cells)
        if (cell.fits || !sharding) best = std::max(best, cell.samples_per_second);
      std::vector<std::string> row = {models[m], nics[n].empty() ? "scenario" : nics[n]};
      for (const Cell& cell : cells) {
        const std::string memory = sharding ? " " + units::format_bytes(cell.memory) : "";
        if (sharding && !cell.fits)
          row.push_back("OOM" + memory + " ");
        else
          row.push_back(fmt::format("{} ({:.0f}%){}{}", with_commas(cell.samples_per_second),
                                    100 * cell.efficiency, memory,
                                    cell.samples_per_second == best ? "*" : " "));
      }
      rows.push_back(row);
    }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& row : rows)
    for (size_t i = 0; i < row.size(); ++i) width[i] = std::max(width[i], row[i].size());
  for (const auto& row : rows) {
    std::string line;
    for (size_t i = 0; i < row.size(); ++i)
      line += i < 2 ? fmt::format("{:<{}}  ", row[i], width[i])
                    : fmt::format("{:>{}}  ", row[i], width[i]);
    while (!line.empty() && line.back() == ' ') line.pop_back();
    std::printf("%s\n", line.c_str());
  }
  if (!opts.csv.empty()) {
    write_file_atomic(opts.csv, csv);
    std::printf("\nall cells: %s\n", opts.csv.c_str());
  }
  return 0;
}

const bool registered = register_command({
    "compare",
    "Compare synchronisation strategies across models and NIC speeds (pivot table)",
    25,
    [](CLI::App* app) {
      app->add_option("scenario", opts.scenario, "Scenario YAML file (the cluster and training)")
          ->required();
      app->add_option("--models", opts.models, "Models to compare (default: the scenario's)")
          ->delimiter(',')
          ->allow_extra_args(false);
      app->add_option("--nic", opts.nics,
                      "NIC bandwidths, e.g. 10Gbps,25Gbps,100Gbps (default: the scenario's)")
          ->delimiter(',')
          ->allow_extra_args(false);
      app->add_option("--strategies", opts.strategies, kStrategyHelp)
          ->delimiter(',')
          ->allow_extra_args(false)
          ->capture_default_str();
      add_repeatable(app, "--set", opts.overrides,
                     "Override a scenario value for every cell, e.g. --set cluster.nodes=8");
      app->add_option("--csv", opts.csv, "Also write every cell's numbers to this CSV file");
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
