// ddpsim compare SCENARIO [--models a,b] [--nic 10Gbps,...] [--strategies ring,ps:4,...]
//                         [--set key=value ...] [-o FILE] [--csv] [-j N] [--uncertainty [N]]
//                         [--seed S]
//
// "Parameter server or all-reduce, which algorithm, for my model on my network?": simulates every
// (model, NIC bandwidth, strategy) cell of the scenario through the same --set overrides a user
// would type, one simulate() per cell, and prints samples/s and scaling efficiency as a pivot
// table (rows: model x NIC, columns: strategies; * marks each row's fastest). With -j N the
// cells run in N forked processes (SimGrid allows one engine per process); each child hands its
// numbers back in a file of hexadecimal floats, so the table is byte-identical to -j 1.
//
// --uncertainty [N]: every cell also runs N draws of its defaulted inputs (docs/assumptions.md),
// all cells on the SAME draws (one Latin hypercube, column j = assumption row j: common random
// numbers), combined with the model's measured error of each cell's mechanism class (shared by
// cells of one class; docs/model-error.md). Each cell leads with its median and p10-p90; each pair
// of strategies in a row prints the share of worlds each is faster, the median ratio and its
// p10-p90, and a verdict (pair_verdict.h): decided, too close to call (a gap within the model's
// resolution) or undecided (naming the deciding input and the measurement that would pin it
// down). While a pair's share is near the decision bound, draws are added (up to 128 per cell);
// the star goes to the strategy the pair lines support.
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/cli/compare_cells.h"
#include "sim/cli/compare_verdicts.h"
#include "sim/cli/option_checks.h"
#include "sim/cost/iteration_plan.h"
#include "sim/cost/resource_estimate.h"
#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "sim/ledger/ledger.h"
#include "sim/model/model_zoo.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_folder.h"
#include "sim/results/scaling_note.h"
#include "sim/scenario/enum_names.h"
#include "sim/text/closest_name.h"
#include "sim/text/input_error.h"
#include "sim/text/units.h"
#include "sim/uncertainty/draw_runner.h"
#include "sim/uncertainty/pair_verdict.h"
#include "sim/uncertainty/uncertainty.h"
#include "sim/validation/mechanism_class.h"
#include "sim/validation/residual_file.h"

namespace ddpsim::cli {
namespace {

struct Options {
  std::string scenario;
  std::vector<std::string> models;
  std::vector<std::string> nics;
  std::vector<std::string> strategies{"ring", "hierarchical", "ps:1", "ps:4", "ps:8"};
  std::vector<std::string> overrides;
  std::string out;       // -o FILE: every cell's numbers as CSV, beside the table
  std::string csv_file;  // --csv FILE: the old spelling of -o FILE (deprecated)
  bool csv = false;      // --csv: print every cell's numbers as CSV instead of the table
  int jobs = 0;
  UncertaintyFlags uncertainty;
} opts;
constexpr int kMaxDraws = 128;  // per cell, however many batches a close pair asks for

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
  // The scenario's own names work here too: FSDP's full_shard, hybrid_shard, no_shard (= ddp).
  const std::optional<Sharding> sharded = enum_from_name<Sharding>(parts[0]);
  const bool ddp = parts[0] == "ddp" || (sharded == Sharding::kNone && parts[0] != "none");
  if (ddp || (sharded && parts[0] != "none")) {
    std::vector<std::string> set = {
        "sync.strategy=allreduce",
        "sync.sharding=" + std::string(ddp ? "none" : enum_name(*sharded)), "sync.schedule=fifo"};
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
  // sync.strategy's names alone: the scenario's own algorithm, servers or period.
  if (enum_from_name<SyncStrategy>(parts[0]) && parts.size() == 1)
    return {"sync.strategy=" + parts[0]};
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
  // A misspelt name gets the nearest one and the names, not the whole grammar (see --help).
  std::vector<std::string> names = {"horovod", "priority", "byteps",   "local-sgd",
                                    "ps",      "ddp",      "sharding", "allreduce"};
  for (const auto& e : enum_table<AllReduceAlgorithm>()) names.push_back(e.name);
  for (const auto& e : enum_table<Sharding>())
    if (e.value != Sharding::kNone) names.push_back(e.name);
  for (const auto& e : enum_aliases<Sharding>()) names.push_back(e.name);
  std::string list;
  for (const std::string& n : names) list += (list.empty() ? "" : ", ") + n;
  const auto closest = closest_name(parts[0], names);
  throw InputError({"<--strategies " + token + ">", 0, 0},
                   "unknown strategy '" + token + "'" +
                       (closest ? "; did you mean '" + *closest + "'?" : std::string()) +
                       " Strategies: " + list +
                       " (options such as ps:K, zero3:ckpt: see "
                       "ddpsim compare --help)");
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

// The table prints whole percents: a mark where the printed figure passes 100.
bool printed_above_linear(const Cell& cell) { return std::round(100 * cell.efficiency) > 100; }

CLI::Option* csv_option = nullptr;

bool yaml_name(const std::string& path) {
  auto ends = [&](const std::string& tail) {
    return path.size() >= tail.size() &&
           path.compare(path.size() - tail.size(), tail.size(), tail) == 0;
  };
  return ends(".yaml") || ends(".yml");
}

int run() {
  opts.csv = csv_option->count() > 0 && opts.csv_file.empty();
  if (opts.scenario.empty() && yaml_name(opts.csv_file)) {  // `compare --csv scenario.yaml`
    opts.scenario = opts.csv_file;
    opts.csv_file.clear();
    opts.csv = true;
  }
  if (opts.scenario.empty()) throw InputError("scenario is required (see --help)");
  if (!opts.csv_file.empty()) {
    std::fprintf(stderr,
                 "note: --csv FILE is deprecated; write -o %s (--csv alone prints the "
                 "cells as CSV on stdout)\n",
                 opts.csv_file.c_str());
    if (opts.out.empty()) opts.out = opts.csv_file;
  }
  const Scenario base = load_scenario(opts.scenario, opts.overrides);
  const std::string out_option = opts.csv_file.empty() ? "-o" : "--csv";
  if (!opts.out.empty()) check_output_file(opts.out, out_option);
  const std::vector<std::string> models =
      opts.models.empty() ? std::vector<std::string>{base.model.name} : opts.models;
  const std::vector<std::string> nics =
      opts.nics.empty() ? std::vector<std::string>{""} : opts.nics;
  // A bad NIC speed is the --nic option's, not a --set the user never typed.
  for (const std::string& nic : opts.nics) {
    const units::Parsed parsed = units::parse(nic, units::Kind::kBandwidth);
    if (!parsed.value) throw InputError({"<--nic " + nic + ">", 0, 0}, parsed.error);
    if (*parsed.value <= 0)
      throw InputError({"<--nic " + nic + ">", 0, 0}, "a NIC bandwidth must be above zero");
  }
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

  // The baselines first (in model order), then the cells: one list for the process pool.
  std::vector<const Scenario*> runs;
  std::vector<size_t> baseline_model;
  for (const auto& [m, scenario] : baselines) {
    runs.push_back(&scenario);
    baseline_model.push_back(m);
  }
  for (const Job& job : jobs) runs.push_back(&job.scenario);
  const size_t first_cell = baseline_model.size();
  const std::vector<Outcome> outcomes = simulate_all(runs, resolve_jobs(opts.jobs), [&](size_t i) {
    if (i < first_cell) return "baseline " + models[baseline_model[i]] + " on one GPU";
    const Job& job = jobs[i - first_cell];
    return fmt::format("[{}/{}] {} {} {}", i - first_cell + 1, jobs.size(), models[job.model],
                       nics[job.nic], opts.strategies[job.strategy]);
  });
  std::map<size_t, double> single;  // per model: single-GPU samples/s
  std::map<size_t, bool> starved;   // per model: the lone GPU waits for data
  for (size_t i = 0; i < first_cell; ++i) {
    single[baseline_model[i]] = outcomes[i].samples_per_second;
    starved[baseline_model[i]] = outcomes[i].bottleneck == "data-loading-bound";
  }

  std::vector<std::vector<Cell>> table(models.size() * nics.size(),
                                       std::vector<Cell>(strategy_sets.size()));
  auto cell_of = [&](const Job& job) -> Cell& {
    return table[job.model * nics.size() + job.nic][job.strategy];
  };
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Outcome& r = outcomes[first_cell + i];
    Cell& cell = cell_of(jobs[i]);
    cell.samples_per_second = r.samples_per_second;
    const double one = single[jobs[i].model];
    cell.efficiency = one > 0 ? r.samples_per_second / (r.gpus * one) : 0;
    cell.memory = r.memory;
    cell.fits = r.fits || !sharding;  // only sharded comparisons check memory
    cell.max_batch = r.max_batch;
    cell.starved_baseline = starved[jobs[i].model];
    cell.tokens_per_second = r.tokens_per_second;
    cell.mfu = r.mfu;
    cell.hfu = r.hfu;
  }
  const bool uncertain = opts.uncertainty.given();
  // Every input defaulted in any cell (the union, in table order): what may decide a pair.
  std::vector<const AssumptionRow*> defaulted;
  std::vector<std::vector<double>> design;  // every draw run, in order (all batches)
  if (uncertain) {
    const std::vector<ResidualRow> residuals = read_residual_file(default_residual_file());
    std::vector<std::vector<LedgerEntry>> ledgers;
    for (size_t i = 0; i < jobs.size(); ++i) {
      const Outcome& r = outcomes[first_cell + i];
      Cell& cell = cell_of(jobs[i]);
      cell.mechanism = classify_mechanism(jobs[i].scenario, r.nodes, r.exposed_comm_share,
                                          r.comm_share, r.data_wait_share);
      cell.error =
          estimate_discrepancy(residuals, cell.mechanism, support_features(jobs[i].scenario));
      ledgers.push_back(build_ledger(jobs[i].scenario));
      for (const LedgerEntry& e : ledgers.back())
        if (e.source == InputSource::kDefault &&
            std::find(defaulted.begin(), defaulted.end(), e.row) == defaulted.end())
          defaulted.push_back(e.row);
    }
    // Draws in batches: the first is the --uncertainty N the user asked for (seed S); while a
    // pair's share is still on both sides of the decision bound, another batch as large as all
    // before it (seed S + draws so far: new points, the earlier ones kept) up to kMaxDraws.
    int batch = opts.uncertainty.samples();
    while (batch > 0) {
      const uint64_t seed = static_cast<uint64_t>(opts.uncertainty.seed) + design.size();
      const std::vector<std::vector<double>> more = uncertainty_design(batch, seed);
      std::vector<Scenario> runs;
      for (size_t i = 0; i < jobs.size(); ++i)
        for (const auto& u : more) runs.push_back(drawn_scenario(jobs[i].scenario, ledgers[i], u));
      std::fprintf(stderr, "%zu draws (%d per cell) ...\n", runs.size(), batch);
      const std::vector<SimulationResult> results =
          run_scenarios(runs, resolve_jobs(opts.jobs), "compare --uncertainty");
      for (size_t i = 0; i < jobs.size(); ++i)
        for (int d = 0; d < batch; ++d)
          cell_of(jobs[i]).draws.push_back(results[i * batch + d].samples_per_second);
      design.insert(design.end(), more.begin(), more.end());
      bool settled = true;
      for (const std::vector<Cell>& cells : table)
        for (size_t a = 0; a < cells.size(); ++a)
          for (size_t b = a + 1; b < cells.size(); ++b)
            if (compared(cells[a], cells[b]) && !judge_cells(cells[a], cells[b]).settled())
              settled = false;
      const int have = static_cast<int>(design.size());
      batch = settled ? 0 : std::min(have, kMaxDraws - have);
      if (batch > 0)
        std::fprintf(stderr, "a pair is still near the %.0f %% bound: %d more draws\n",
                     100 * kDecidedShare, batch);
    }
    for (size_t i = 0; i < jobs.size(); ++i) {
      Cell& cell = cell_of(jobs[i]);
      cell.band = combined_band(anchored_draws(cell.draws, cell.error, cell.samples_per_second),
                                cell.error);
    }
  }
  const int draws = static_cast<int>(design.size());
  std::string csv =
      "model,nic,strategy,gpus,samples_per_second,scaling_efficiency,"
      "iteration_time_s,exposed_comm_share,bottleneck,memory_bytes,fits,max_batch,"
      "tokens_per_second,mfu,hfu" +
      std::string(uncertain ? ",samples_per_second_p10,samples_per_second_p50,"
                              "samples_per_second_p90"
                            : "") +
      "\n";
  for (size_t i = 0; i < jobs.size(); ++i) {
    const Job& job = jobs[i];
    const Outcome& r = outcomes[first_cell + i];
    const Cell& cell = cell_of(job);
    // The LLM units exist for transformers only: empty cells for other models.
    const bool llm = r.tokens_per_second > 0;
    csv += fmt::format(
        "{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6g},{},{:.0f},{},{},{},{},{}\n", models[job.model],
        nics[job.nic], opts.strategies[job.strategy], r.gpus, r.samples_per_second, cell.efficiency,
        r.iteration_time, r.exposed_comm_share, r.bottleneck, cell.memory, r.fits ? 1 : 0,
        cell.max_batch, llm ? fmt::format("{:.6g}", r.tokens_per_second) : "",
        llm ? fmt::format("{:.6g}", r.mfu) : "", llm ? fmt::format("{:.6g}", r.hfu) : "");
    if (uncertain) {
      csv.pop_back();
      csv += fmt::format(",{:.6g},{:.6g},{:.6g}\n", cell.band.p10, cell.band.p50, cell.band.p90);
    }
  }
  if (opts.csv) {
    std::printf("%s", csv.c_str());
    if (!opts.out.empty()) write_file_atomic(opts.out, csv);
    return 0;
  }

  const ClusterSpec& c = base.cluster;
  bool any_llm = false, above_linear = false, any_starved = false;
  for (const auto& cells : table)
    for (const Cell& cell : cells) {
      any_llm = any_llm || cell.tokens_per_second > 0;
      any_starved = any_starved || cell.starved_baseline;
      above_linear = above_linear || (printed_above_linear(cell) && (cell.fits || !sharding));
    }
  std::printf(
      "%s: %d node%s x %d %s = %d GPUs, batch %d/GPU; samples/s (scaling efficiency "
      "against one GPU)%s%s, * = %s%s\n\n",
      base.name.c_str(), c.nodes, c.nodes == 1 ? "" : "s", c.gpus_per_node, c.gpu.name.c_str(),
      c.total_gpus(), base.training.batch_per_gpu,
      any_llm ? ", MFU (model FLOPs utilisation, PaLM app. B)" : "",
      sharding ? " and memory per GPU" : "",
      uncertain ? "the strategy its pairs support (below)" : "fastest in the row",
      sharding ? " that fits; OOM: does not fit in memory" : "");
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {"model", "NIC"};
  header.insert(header.end(), opts.strategies.begin(), opts.strategies.end());
  rows.push_back(header);
  // Banded, a row's star goes to the cell its pair lines support (compare_verdicts.h), and each
  // cell leads with its headline: the median of its draws x the model's error, inside its band.
  std::vector<RowVerdicts> verdicts;
  for (const std::vector<Cell>& cells : table) verdicts.push_back(judge_row(cells, uncertain));
  for (size_t m = 0; m < models.size(); ++m)
    for (size_t n = 0; n < nics.size(); ++n) {
      const std::vector<Cell>& cells = table[m * nics.size() + n];
      const RowVerdicts& verdict = verdicts[m * nics.size() + n];
      // Without draws every cell as fast as the fastest that fits is starred (a tie stars both).
      auto starred = [&](size_t k) {
        return uncertain ? static_cast<int>(k) == verdict.star
                         : cells[k].fits && cells[k].samples_per_second == verdict.best;
      };
      std::vector<std::string> row = {models[m], nics[n].empty() ? "scenario" : nics[n]};
      for (size_t k = 0; k < cells.size(); ++k) {
        const Cell& cell = cells[k];
        const std::string memory = sharding ? " " + units::format_bytes(cell.memory) : "";
        const double headline = uncertain ? cell.band.p50 : cell.samples_per_second;
        const double efficiency =
            cell.samples_per_second > 0 ? cell.efficiency * headline / cell.samples_per_second : 0;
        if (!cell.fits)
          row.push_back("OOM" + memory + " ");
        else
          row.push_back(
              fmt::format("{} ({:.0f}%{}{}){}{}{}{}", units::format_rate(headline),
                          100 * efficiency, printed_above_linear(cell) ? kAboveLinearMark : "",
                          cell.starved_baseline ? kStarvedBaselineMark : "",
                          cell.tokens_per_second > 0 ? fmt::format(" MFU {:.0f}%", 100 * cell.mfu)
                                                     : std::string(),
                          uncertain ? fmt::format(" [{} - {}]", units::format_rate(cell.band.p10),
                                                  units::format_rate(cell.band.p90))
                                    : std::string(),
                          memory, starred(k) ? "*" : " "));
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
  if (above_linear) std::printf("%s\n", above_linear_footnote().c_str());
  if (any_starved) std::printf("%s\n", starved_baseline_footnote().c_str());
  if (uncertain) {
    std::printf(
        "\nmedian [p10 - p90] over %d draws of the defaulted inputs (seed %lld), the same draws "
        "for every cell, x the model's measured error (docs/model-error.md); * = the strategy "
        "the pairs below support\n",
        draws, opts.uncertainty.seed);
    std::printf(
        "pairs: the share of sampled worlds in which each strategy is faster and by how much; "
        "decided = at least %.0f %% of worlds (one-sided 95 %% bound over the draws) and a gap "
        "beyond the model's resolution\n",
        100 * kDecidedShare);
    for (size_t m = 0; m < models.size(); ++m)
      for (size_t n = 0; n < nics.size(); ++n) {
        if (models.size() * nics.size() > 1)
          std::printf("%s, NIC %s\n", models[m].c_str(),
                      nics[n].empty() ? "scenario" : nics[n].c_str());
        std::printf("%s",
                    format_row_verdicts(verdicts[m * nics.size() + n], table[m * nics.size() + n],
                                        opts.strategies, defaulted, design)
                        .c_str());
      }
  }
  if (!opts.out.empty()) {
    write_file_atomic(opts.out, csv);
    std::printf("\nall cells: %s\n", opts.out.c_str());
  }
  return 0;
}

const bool registered = register_command({
    "compare",
    "Compare synchronisation strategies across models and NIC speeds (pivot table)",
    25,
    [](CLI::App* app) {
      // Required, but checked in run(): `--csv scenario.yaml` gives it to --csv's old FILE.
      app->add_option("scenario", opts.scenario,
                      "Scenario YAML file (the cluster and training; required)");
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
      app->add_option("-o,--out", opts.out, "Also write every cell's numbers to this CSV file");
      // --csv is a flag in every command; `--csv FILE` (its old meaning here) still works.
      csv_option = app->add_option("--csv", opts.csv_file,
                                   "Print every cell's numbers as CSV instead of the table "
                                   "(--csv FILE, deprecated: -o FILE)")
                       ->expected(0, 1);
      add_jobs_option(app, &opts.jobs, "Cells simulated in parallel");
      add_uncertainty_options(app, &opts.uncertainty,
                              "Also run draws of the defaulted inputs, the same for every cell: "
                              "p10-p90 bands and the share of worlds each strategy wins");
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
