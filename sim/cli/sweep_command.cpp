// ddpsim sweep SCENARIO -o OUTDIR [-j N] [--sweep key=v1,v2,...] [--set key=value] [--shard i/n]
//
// Runs every point of a sweep (sim/sweep/sweep_spec.h) in N worker processes, one forked child
// per point, and keeps OUTDIR (sim/sweep/sweep_store.h) consistent at every instant: a killed
// sweep resumes with the same command, repeating and losing nothing.
// --uncertainty [N] [--seed S]: each point also runs N draws of its defaulted inputs, the same
// design for every point (common random numbers, as compare's cells), and results.csv gains the
// p10/p50/p90 columns (docs/results-csv.md). The draws of a point run inside its child; -j runs
// points side by side, and its share per point beyond one runs that point's draws in parallel.
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/cli/option_checks.h"
#include "sim/cost/resource_estimate.h"
#include "sim/cost/stragglers.h"
#include "sim/engine/simulation.h"
#include "sim/ledger/ledger.h"
#include "sim/model/model_zoo.h"
#include "sim/output/atomic_file.h"
#include "sim/results/provenance.h"
#include "sim/results/result_json.h"
#include "sim/results/scaling_note.h"
#include "sim/sweep/process_pool.h"
#include "sim/sweep/progress.h"
#include "sim/sweep/results_csv.h"
#include "sim/sweep/shard.h"
#include "sim/sweep/sweep_plan.h"
#include "sim/sweep/sweep_store.h"
#include "sim/text/inputs_read.h"
#include "sim/uncertainty/draw_runner.h"
#include "sim/uncertainty/uncertainty.h"
#include "sim/validation/residual_file.h"

namespace ddpsim::cli {
namespace {

struct Options {
  std::string scenario;
  std::string out_dir;
  int jobs = 0;
  std::vector<std::string> sweeps;
  std::vector<std::string> overrides;
  std::string shard;
  bool list = false;
  bool yes = false;  // --yes: start a sweep estimated above kConfirmSeconds
  bool no_baseline = false;
  std::string trace_gpus = "auto";
  UncertaintyFlags uncertainty;
} opts;

volatile std::sig_atomic_t g_stop = 0;
void request_stop(int) { g_stop = 1; }

constexpr int kExitInterrupted = 130;

Shard resolve_shard() {
  if (!opts.shard.empty()) return parse_shard(opts.shard);
  if (auto slurm = shard_from_slurm([](const char* name) { return std::getenv(name); })) {
    std::fprintf(stderr, "shard %s (from SLURM_ARRAY_TASK_ID=%s)\n", slurm->to_string().c_str(),
                 std::getenv("SLURM_ARRAY_TASK_ID"));
    return *slurm;
  }
  return Shard{};
}

std::string fixed(double v, int decimals) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
  return buf;
}

std::string describe_done(const PlannedPoint& p, const RecordedPoint& point, double wall) {
  const SimulationResult& r = point.result;
  // Banded, the headline is the median of draws x model error, inside its band.
  const std::string band = point.bands
                               ? " (p10 " + fixed(point.bands->samples_per_second.p10, 1) +
                                     " - p90 " + fixed(point.bands->samples_per_second.p90, 1) + ")"
                               : "";
  const double headline = point.bands ? point.bands->samples_per_second.p50 : r.samples_per_second;
  return "#" + std::to_string(p.point.index) + " " + describe_point(p.point) + ": " +
         std::to_string(r.gpus) + " GPUs, " + fixed(headline, 1) + " samples/s" + band + ", " +
         fixed(r.iteration_time * 1e3, 2) + " ms/step, " + r.bottleneck + " (" + fixed(wall, 1) +
         " s)";
}

// One row per point of the table printed at the end: the swept values, then the headline
// numbers. Long sweeps print their first rows and point to results.csv for the rest.
void print_table(const SweepPlan& plan, const CsvTable& csv) {
  const std::vector<std::string> keys = plan.swept_keys();
  std::vector<std::string> header = {"point"};
  header.insert(header.end(), keys.begin(), keys.end());
  const bool bands = csv_column(csv, "samples_per_second_p10") >= 0;
  auto cell = [&](const std::vector<std::string>& row, const char* name) {
    const int c = csv_column(csv, name);
    return c < 0 ? std::string() : row[static_cast<size_t>(c)];
  };
  // Transformers: tokens/s and MFU beside samples/s (results.csv, docs/results-csv.md).
  bool llm = false;
  for (const auto& row : csv.rows) llm = llm || !cell(row, "tokens_per_second").empty();
  header.insert(header.end(), {"gpus", bands ? "samples/s p50" : "samples/s"});
  if (bands) header.push_back("p10 - p90");
  if (llm) header.insert(header.end(), {"tokens/s", "MFU"});
  for (const char* h : {"eff", "ms/step", "comm", "exposed", "bottleneck"}) header.push_back(h);
  bool above_linear = false, starved = false;
  auto number = [&](const std::vector<std::string>& row, const char* name, double scale,
                    int decimals, const char* suffix) {
    const std::string text = cell(row, name);
    return text.empty() ? std::string("-") : fixed(std::stod(text) * scale, decimals) + suffix;
  };
  constexpr size_t kMaxRows = 60;
  std::vector<std::vector<std::string>> lines = {header};
  for (size_t i = 0; i < csv.rows.size() && i < kMaxRows; ++i) {
    const auto& row = csv.rows[i];
    std::vector<std::string> line = {cell(row, "point")};
    for (const std::string& key : keys) line.push_back(cell(row, key.c_str()));
    line.push_back(cell(row, "gpus"));
    if (cell(row, "status") != "ok") {
      line.insert(line.end(), {"-", "-", "-", "-", "-", "FAILED"});
      if (bands) line.insert(line.end() - 1, "-");
      if (llm) line.insert(line.end() - 1, {"-", "-"});
    } else {
      line.push_back(
          number(row, bands ? "samples_per_second_p50" : "samples_per_second", 1, 1, ""));
      if (bands)
        line.push_back(number(row, "samples_per_second_p10", 1, 1, "") + " - " +
                       number(row, "samples_per_second_p90", 1, 1, ""));
      if (llm) {
        line.push_back(number(row, "tokens_per_second", 1, 0, ""));
        line.push_back(number(row, "mfu", 100, 1, "%"));
      }
      const std::string efficiency = cell(row, "scaling_efficiency");
      // Printed to 0.1 %: marked where the printed figure passes 100 (the footnote says why).
      const bool above = !efficiency.empty() && std::stod(efficiency) * 100 >= 100.05;
      above_linear = above_linear || above;
      const bool starved_here = cell(row, "single_gpu_bottleneck") == "data-loading-bound";
      starved = starved || starved_here;
      line.push_back(efficiency.empty() ? std::string("not computed")
                                        : number(row, "scaling_efficiency", 100, 1, "%") +
                                              (above ? kAboveLinearMark : "") +
                                              (starved_here ? kStarvedBaselineMark : ""));
      line.push_back(number(row, "iteration_time_s", 1e3, 2, ""));
      line.push_back(number(row, "comm_share", 100, 1, "%"));
      line.push_back(number(row, "exposed_comm_share", 100, 1, "%"));
      line.push_back(cell(row, "bottleneck"));
    }
    lines.push_back(line);
  }
  std::vector<size_t> width(header.size(), 0);
  for (const auto& line : lines)
    for (size_t c = 0; c < line.size(); ++c) width[c] = std::max(width[c], line[c].size());
  for (const auto& line : lines) {
    std::string text;
    for (size_t c = 0; c < line.size(); ++c) {
      const bool left = c == line.size() - 1 || (c >= 1 && c <= keys.size());
      std::string pad(width[c] - line[c].size(), ' ');
      text += (c ? "  " : "") + (left ? line[c] + pad : pad + line[c]);
    }
    while (!text.empty() && text.back() == ' ') text.pop_back();
    std::printf("%s\n", text.c_str());
  }
  if (csv.rows.size() > kMaxRows) {
    std::printf("... %zu more rows in results.csv\n", csv.rows.size() - kMaxRows);
  }
  if (above_linear) std::printf("%s\n", above_linear_footnote().c_str());
  if (starved) std::printf("%s\n", starved_baseline_footnote().c_str());
  // Warnings the points' results carry (results.csv `notes`), each once with the points it holds
  // for: a flat sweep over CPU cores says why (a worker cap or the store binds).
  std::vector<std::pair<std::string, std::vector<std::string>>> warnings;
  const std::string mark = "; warning: ";
  for (const auto& row : csv.rows) {
    const std::string notes = cell(row, "notes");
    for (size_t at = notes.find(mark); at != std::string::npos;) {
      const size_t next = notes.find(mark, at + mark.size());
      const std::string w =
          notes.substr(at + mark.size(),
                       next == std::string::npos ? std::string::npos : next - at - mark.size());
      auto it = std::find_if(warnings.begin(), warnings.end(),
                             [&](const auto& e) { return e.first == w; });
      if (it == warnings.end()) it = warnings.insert(warnings.end(), {w, {}});
      it->second.push_back(cell(row, "point"));
      at = next;
    }
  }
  for (const auto& [w, points] : warnings)
    std::printf("warning (point%s %s): %s\n", points.size() == 1 ? "" : "s",
                fmt::format("{}", fmt::join(points, ",")).c_str(), w.c_str());
}

// Per point besides its simulation: a process started, the model built, two files written
// (34 to 48 points/s measured for the 8- and 16-GPU points of scenarios/default.yaml).
constexpr double kSecondsPerPoint = 0.02;

std::string format_elapsed(double seconds) {
  if (seconds < 120) return fmt::format("{:.0f} s", seconds);
  if (seconds < 7200) return fmt::format("{:.0f} min", seconds / 60);
  return fmt::format("{:.1f} h", seconds / 3600);
}

// Refuses, before anything runs, a point this machine cannot simulate within an hour
// (resource_estimate.h); the message names the point.
// Returns the estimated wall seconds of all of this shard's points, one after the other; with
// --uncertainty N a point is N + 1 runs (the nominal one and its draws).
double check_point_resources(const SweepPlan& plan, const Shard& shard) {
  const ResourceLimits limits = machine_limits(3600);
  const double runs = 1.0 + (opts.uncertainty.given() ? opts.uncertainty.samples() : 0);
  double total = 0;
  for (const PlannedPoint& p : plan.points) {
    if (!shard.owns(p.point.index)) continue;
    Model model;
    std::string error;
    if (!build_model(p.scenario.model, &model, &error)) continue;  // plan_sweep reported it
    try {
      const IterationPlan iteration = build_iteration_plan(p.scenario, model);
      const ResourceEstimate estimate = estimate_resources(p.scenario, iteration);
      check_resources(p.scenario, estimate, limits);
      total += (estimate.wall_seconds + kSecondsPerPoint) * runs;
    } catch (const InputError& e) {
      throw InputError(e.where(), "sweep point " + std::to_string(p.point.index) + " (" +
                                      describe_point(p.point) + "): " + e.message());
    }
  }
  return total;
}

// A sweep estimated to run longer than this asks for --yes before it starts (docs/sweeps.md):
// 20,000 points used to start without a word and run for an hour.
constexpr double kConfirmSeconds = 600;

// `sampled`: the estimate scales that many points spread over the sweep (0: every point).
void confirm_long_sweep(const SweepPlan& plan, size_t points, double seconds, size_t sampled = 0) {
  const int jobs = resolve_jobs(opts.jobs);  // -j 0: one per CPU
  const double wall = seconds / jobs;
  const std::string line = fmt::format(
      "{} points, about {} of wall time estimated with -j {}{}", points, format_elapsed(wall), jobs,
      sampled ? fmt::format(" (from {} points spread over the sweep)", sampled) : "");
  if (wall <= kConfirmSeconds) return;
  if (!opts.yes)
    throw InputError({plan.scenario_file, 0, 0},
                     line +
                         ": above 10 min, a sweep starts only with --yes (or run more points at "
                         "once with -j, shard it with --shard, or sweep fewer values)");
  std::fprintf(stderr, "sweep of %s\n", line.c_str());
}

// A sweep of many points is first estimated on a sample spread over it, so that one far above
// the threshold is refused in a second or two instead of after planning every point (a millisecond
// and about 7 KB each: 50,000 points of default.yaml took 25 s and 360 MB to be refused, and a
// sweep may have a million). Near the threshold every point is planned and decides, as before.
constexpr size_t kSampledPoints = 1000;
constexpr double kSampleMargin = 1.5;  // the sample's estimate refuses above 1.5 x the threshold

void refuse_far_too_long_sweep(const std::string& fingerprint, const Shard& shard) {
  if (opts.yes) return;
  // The files the sample reads are recorded again, in the sweep's own order, by the full plan.
  const std::vector<InputRecord> files_before = inputs_read();
  SweepPlan sample;
  size_t owned = 0;
  double seconds = 0;
  try {
    const SweepSpec spec = read_sweep_spec(opts.scenario, opts.sweeps);
    if (spec.point_count() > kMaxSweepPoints) return;  // the full plan says so
    const size_t total = spec.point_count();
    owned = shard.owned_of(total);
    if (owned <= 2 * kSampledPoints) return;
    const double fraction = static_cast<double>(kSampledPoints) / static_cast<double>(owned);
    // Each of the shard's points with that probability, drawn from a fixed hash of its index:
    // every n-th point in cartesian order would alias with the axes (50,000 points of 500 batch
    // sizes x 100 bucket caps: every 50th is caps 1 and 51 MiB only, and estimated 50 min for
    // the 27 of every point).
    sample = plan_sweep(opts.scenario, opts.overrides, opts.sweeps, fingerprint, [&](size_t i) {
      return shard.owns(i) && (i == shard.index || seeded_uniform(0, i, 0, 0) < fraction);
    });
    seconds = check_point_resources(sample, shard) * static_cast<double>(owned) /
              static_cast<double>(sample.points.size());
  } catch (const InputError&) {
    // A mistake is reported by the full plan, at the first point that has it.
    set_inputs_read(files_before);
    return;
  }
  if (seconds / resolve_jobs(opts.jobs) > kSampleMargin * kConfirmSeconds)
    confirm_long_sweep(sample, owned, seconds, sample.points.size());
  set_inputs_read(files_before);
}

int list_points(const SweepPlan& plan, const Shard& shard) {
  for (const PlannedPoint& p : plan.points) {
    if (!shard.owns(p.point.index)) continue;
    std::printf("%zu %s %s\n", p.point.index, p.id.c_str(), describe_point(p.point).c_str());
  }
  return kExitOk;
}

int run() {
  SimOptions sim;
  std::string trace_error;
  parse_trace_gpus(opts.trace_gpus, &sim.trace, &trace_error);  // checked by trace_gpus_spec()
  sim.baseline = !opts.no_baseline;
  const bool uncertain = opts.uncertainty.given();
  UncertaintyOptions draws;
  draws.samples = opts.uncertainty.samples();
  draws.seed = static_cast<uint64_t>(opts.uncertainty.seed);
  draws.influences = false;  // N + 1 runs per point: the tornado is simulate's
  // Points with bands are other points than without (and than with other draws): their own ids.
  const std::string fingerprint =
      "trace_gpus=" + trace_gpus_text(sim.trace) + ";baseline=" + (sim.baseline ? "1" : "0") +
      (uncertain ? fmt::format(";uncertainty={};seed={}", draws.samples, draws.seed) : "");
  const Shard shard = resolve_shard();
  if (!opts.list) refuse_far_too_long_sweep(fingerprint, shard);
  const SweepPlan plan = plan_sweep(opts.scenario, opts.overrides, opts.sweeps, fingerprint);
  // What every point reads (the scenario file); each point adds its own (profile, table, ...).
  const std::vector<InputRecord> sweep_inputs = inputs_read();
  if (opts.list) return list_points(plan, shard);
  {
    const double seconds = check_point_resources(plan, shard);
    size_t owned = 0;
    for (const PlannedPoint& p : plan.points) owned += shard.owns(p.point.index) ? 1 : 0;
    confirm_long_sweep(plan, owned, seconds);
  }
  for (const PlannedPoint& p : plan.points) traced_ranks(p.scenario, sim.trace);  // in the cluster

  const std::string out_dir =
      opts.out_dir.empty() ? "out/" + plan.points.front().scenario.name : opts.out_dir;
  SweepStore store(out_dir);
  store.remove_stale_temporaries();
  write_file_atomic(store.manifest_path(), sweep_manifest(plan, shard.to_string()).dump(2) + "\n");

  // Rows of this shard's points, by point index; the CSV is always exactly these, sorted.
  std::map<size_t, std::vector<std::string>> rows;
  std::map<std::string, std::vector<size_t>> points_of_id;  // equal scenarios share a run
  std::vector<size_t> todo;
  size_t mine = 0, already = 0;
  CurrentFiles files;
  std::map<std::string, size_t> outdated;  // why recorded points run again -> how many
  std::map<std::string, std::optional<RecordedPoint>> recorded;  // by id, read once
  for (size_t i = 0; i < plan.points.size(); ++i) {
    const PlannedPoint& p = plan.points[i];
    if (!shard.owns(p.point.index)) continue;
    ++mine;
    auto& same = points_of_id[p.id];
    same.push_back(i);
    if (same.size() == 1) {
      auto point = store.recorded_point(p.id);
      if (point && uncertain && !point->bands) point.reset();  // not a complete point file
      if (point) {
        // A point computed by another ddpsim, or from a file that has changed since, is stale.
        const std::string change = provenance_change(point->provenance, &files);
        if (!change.empty()) {
          ++outdated[change];
          point.reset();
        } else {
          point->result.trace.clear();  // the rows need none of it; long sweeps keep many
          point->result.link_counters.clear();
        }
      }
      if (!point) todo.push_back(i);
      recorded.emplace(p.id, std::move(point));
    }
    if (const auto& point = recorded.at(p.id)) {
      rows[p.point.index] =
          results_csv_row(p.key(plan.spec), p.scenario, point->result, point->provenance,
                          uncertain ? &*point->bands : nullptr);
      ++already;
    }
  }
  for (const auto& [why, count] : outdated) {
    std::fprintf(stderr, "recomputing %zu recorded point%s: %s\n", count, count == 1 ? "" : "s",
                 why.c_str());
  }
  CsvTable csv;
  csv.header = results_csv_header(plan.swept_keys(), uncertain);
  auto write_csv = [&] {
    csv.rows.clear();
    for (const auto& [index, row] : rows) csv.rows.push_back(row);
    write_file_atomic(store.csv_path(), format_csv(csv));
  };
  write_csv();
  if (already > 0) {
    std::fprintf(stderr, "resuming %s: %zu of %zu points already done\n", out_dir.c_str(), already,
                 mine);
  }

  // Each point's ledger, built here at the edge (it may read the profile or platform file the
  // point names), so the children only simulate.
  std::map<size_t, std::vector<LedgerEntry>> ledgers;
  std::vector<ResidualRow> model_errors;  // the measured model error every point's band adds
  if (uncertain) {
    for (size_t i : todo) ledgers.emplace(i, build_ledger(plan.points[i].scenario));
    model_errors = read_residual_file(default_residual_file());
  }
  // -j spreads the points; what the points leave idle runs each point's draws side by side
  // (-j 8 over 2 points: 4 draws at a time in each). The bands do not depend on it.
  draws.jobs =
      std::max(1, resolve_jobs(opts.jobs) / static_cast<int>(std::max<size_t>(todo.size(), 1)));

  std::signal(SIGINT, request_stop);
  std::signal(SIGTERM, request_stop);
  SweepProgress progress(mine, already, ::isatty(STDERR_FILENO), stderr);
  {
    // The time left from each point's estimated cost (with its draws), not the mean point's.
    std::vector<double> costs(plan.points.size(), 0.0);
    const double drawn = uncertain ? draws.samples : 0;
    for (size_t i : todo)
      costs[i] = estimated_run_seconds(plan.points[i].scenario) +
                 drawn * estimated_run_seconds(plan.points[i].scenario, true);
    progress.set_costs(std::move(costs));
  }
  size_t failures = 0;
  auto last_write = std::chrono::steady_clock::now();
  PoolOptions pool;
  pool.jobs = resolve_jobs(opts.jobs);
  pool.close_in_child = {store.lock_fd()};
  progress.set_jobs(pool.jobs);
  pool.stop = &g_stop;
  run_in_processes(
      todo, pool,
      [&](size_t i) {
        const PlannedPoint& p = plan.points[i];
        set_inputs_read(sweep_inputs);  // not the files the parent read for other points
        // Banded points fork their draws after the run: its engine stays out of this process.
        const SimulationResult result =
            uncertain ? simulate(p.scenario, sim) : simulate_here(p.scenario, sim);
        const Provenance provenance = current_provenance();
        nlohmann::json bands;
        if (uncertain) {
          UncertaintyOptions point_draws = draws;
          use_model_error(&point_draws, p.scenario, result, model_errors);
          bands = uncertainty_to_json(assess_uncertainty(p.scenario, ledgers.at(i), point_draws));
        }
        // The trace first: a complete point file promises its trace exists too.
        nlohmann::json trace = trace_to_chrome_json(result);
        trace["otherData"]["provenance"] = provenance_to_json(provenance);
        write_file_atomic(store.trace_path(p.id), trace.dump() + "\n");
        write_file_atomic(store.point_path(p.id),
                          point_document(p, plan.spec, result, provenance, bands));
      },
      [&](const TaskOutcome& outcome) {
        if (outcome.interrupted) return;
        const PlannedPoint& p = plan.points[outcome.task];
        std::optional<RecordedPoint> result;
        if (outcome.exit_code == 0) result = store.recorded_point(p.id);
        if (result && uncertain && !result->bands) result.reset();
        std::string line;
        for (size_t i : points_of_id[p.id]) {
          const PlannedPoint& same = plan.points[i];
          if (result) {
            rows[same.point.index] =
                results_csv_row(same.key(plan.spec), same.scenario, result->result,
                                result->provenance, uncertain ? &*result->bands : nullptr);
            line = describe_done(same, *result, outcome.wall_seconds);
          } else {
            const std::string error =
                outcome.exit_code == 0 ? "the point file was not written" : outcome.error;
            rows[same.point.index] =
                failed_csv_row(same.key(plan.spec), same.scenario, error, uncertain);
            line = "#" + std::to_string(same.point.index) + " " + describe_point(same.point) +
                   ": FAILED: " + error;
            ++failures;
          }
          progress.point_done(line, i, outcome.wall_seconds);
        }
        // Rewriting the whole CSV per point is cheap for ordinary sweeps; very long ones
        // rewrite at most once a second (the point files keep every result meanwhile).
        const auto now = std::chrono::steady_clock::now();
        if (rows.size() < 2000 || now - last_write > std::chrono::seconds(1)) {
          write_csv();
          last_write = now;
        }
      },
      [&] { progress.tick(); });
  progress.finish();
  write_csv();
  std::signal(SIGINT, SIG_DFL);
  std::signal(SIGTERM, SIG_DFL);

  if (g_stop) {
    std::fprintf(stderr,
                 "interrupted: %zu of %zu points done; run the same command again to resume\n",
                 rows.size() - failures, mine);
    return kExitInterrupted;
  }
  print_table(plan, csv);
  std::printf("results         %s  (%zu points%s; per point: %s/points/<point_id>.json)\n",
              store.csv_path().c_str(), rows.size(),
              shard.whole() ? "" : (", shard " + shard.to_string()).c_str(), out_dir.c_str());
  if (failures > 0) {
    std::fprintf(stderr, "%zu point(s) failed (see the error column); rerun to retry them\n",
                 failures);
    return kExitFailure;
  }
  return kExitOk;
}

const bool registered = register_command({
    "sweep",
    "Simulate every point of a sweep (cartesian product of scenario values) in parallel",
    20,
    [](CLI::App* app) {
      app->add_option("scenario", opts.scenario, "Scenario YAML file (with a sweep: section)")
          ->required();
      app->add_option("-o,--out", opts.out_dir,
                      "Output folder: results.csv, sweep.json, points/ (default out/<name>)");
      add_jobs_option(app, &opts.jobs, "Points simulated in parallel");
      add_repeatable(app, "--sweep", opts.sweeps,
                     "Sweep a value, e.g. --sweep cluster.nodes=1,2,4,8 (repeatable; "
                     "cartesian product)");
      add_repeatable(app, "--set", opts.overrides,
                     "Override a scenario value for every point, e.g. --set training.iterations=2");
      app->add_option("--shard", opts.shard,
                      "Run only points i, i+n, i+2n, ... (i/n, from 0; default from "
                      "SLURM_ARRAY_TASK_ID/COUNT)");
      app->add_flag("--list", opts.list, "Print the points (index, id, overrides) and exit");
      app->add_flag("--yes", opts.yes,
                    "Start a sweep estimated to run longer than 10 minutes (it asks otherwise)");
      app->add_flag("--no-baseline", opts.no_baseline,
                    "Skip the single-GPU runs (no scaling efficiency)");
      app->add_option(
             "--trace-gpus", opts.trace_gpus,
             "GPUs shown in each point's trace: auto (the first GPU of every node, up to 64 "
             "nodes, and the slowest), all, none, or ranks such as 0,5,8-15")
          ->check(trace_gpus_spec());
      add_uncertainty_options(app, &opts.uncertainty,
                              "Also give each point its p10-p90 band over draws of its defaulted "
                              "inputs, the same draws for every point (results.csv band columns)");
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
