// ddpsim validate [DIR] [-o OUTDIR] [-j JOBS]: runs every scenario under DIR (default
// scenarios/validation), each of which rebuilds published measurements named in its
// `validation:` section (sim/validation/validation_case.h), and compares prediction with
// measurement. Prints per case measured, predicted and signed error, then median and p90
// absolute error per group and overall, then how many pairs of cases sharing a compare label the
// prediction orders as the measurements (pair_ranking.h); writes OUTDIR/validation.csv,
// OUTDIR/runs/*.json (each scenario's results) and OUTDIR/validation.png
// (reports/validation_plot.py, run with the Debian interpreter /usr/bin/python3, the one with
// matplotlib; DDPSIM_PYTHON overrides it).
//
// --measured FILE adds the points of a measurement file of the machine at hand
// (sim/validation/measured_cases.h, written by calibrate/pytorch/ground_truth.py): each point's
// generated scenario is simulated like a published one and reported in the group `local`;
// --measured-only leaves the published cases out.
//
// --uncertainty [N] also runs N draws of each scenario's defaulted inputs (docs/assumptions.md)
// and bands each case with its draws x the model's error measured on the OTHER sources' cases
// of its mechanism class (leave-one-source-out, docs/model-error.md). It prints, per class and
// overall, the coverage of p10-p90 (nominal 80 %) with its 95 % Clopper-Pearson interval, the
// median width in % of the headline, the misses below p10 and above p90, the mean interval score
// (Gneiting and Raftery 2007, alpha 0.2) and the headline's median |error|; writes
// OUTDIR/uncertainty.csv, OUTDIR/discrepancy.csv (this run's residual rows, the repository's
// scenarios/validation/discrepancy.csv when run over every case) and each draw's results as
// OUTDIR/runs/NAME.draw-K.json (every run, nominal or draw, is one task of the -j pool, largest
// jobs first). --min-coverage, --max-coverage and --max-width turn those into an exit code.
//
// Exit code 0 when every non-pending scenario simulated; 1 when one failed, or when
// --max-median / --max-case are given and exceeded; 2 for a malformed scenario or section.

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <thread>
#include <vector>

#include "sim/cli/command.h"
#include "sim/cli/option_checks.h"
#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "sim/ledger/ledger.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_folder.h"
#include "sim/process/install_paths.h"
#include "sim/process/python_script.h"
#include "sim/results/result_json.h"
#include "sim/sweep/process_pool.h"
#include "sim/sweep/run_progress.h"
#include "sim/text/input_file.h"
#include "sim/uncertainty/draw_runner.h"
#include "sim/uncertainty/uncertainty.h"
#include "sim/validation/beta_distribution.h"
#include "sim/validation/case_prediction.h"
#include "sim/validation/discrepancy.h"
#include "sim/validation/measured_cases.h"
#include "sim/validation/mechanism_class.h"
#include "sim/validation/pair_ranking.h"
#include "sim/validation/residual_file.h"
#include "sim/validation/validation_table.h"

namespace ddpsim::cli {
namespace {

namespace fs = std::filesystem;

struct Options {
  std::string dir;       // default: the bundled scenarios/validation (install_paths.h)
  std::string measured;  // a measurement file of the machine at hand (measured_cases.h)
  bool measured_only = false;
  std::string out_dir = "out/validation";
  int jobs = 0;
  double max_median = 0;
  double max_case = 0;
  bool no_plot = false;
  UncertaintyFlags uncertainty;  // 16 draws by default (set where the options are added)
  double min_coverage = -1, max_coverage = -1, max_width = -1;
  std::string model_error;  // residual rows of cases this run does not simulate
} opts;

// The results of one scenario's draw `k`, beside its nominal results file.
std::string draw_file(const std::string& run, size_t k) {
  return run.substr(0, run.size() - 5) + ".draw-" + std::to_string(k) + ".json";
}

// One case's draws, before the model error is added.
struct CaseDraws {
  std::string id, source;  // source: the case's folder under DIR ("local" for --measured)
  MechanismClass mechanism;
  SupportFeatures support;
  double measured = 0, nominal = 0;
  bool rate = true;  // false for a time: a faster reality shortens it
  std::vector<double> values;
};

struct BandRow {
  std::string mechanism, id, pooled;
  double measured = 0, nominal = 0, p10 = 0, p50 = 0, p90 = 0;
  int distance = 0;  // reasons the case is unlike the other sources' cases
};

ResidualRow residual_row(const CaseDraws& c) {
  ResidualRow r;
  r.id = c.id;
  r.source = c.source;
  r.mechanism = c.mechanism;
  r.support = c.support;
  r.measured = c.measured;
  r.nominal = c.nominal;
  r.median = percentile(c.values, 0.5);
  const double orient = c.rate ? 1 : -1;
  r.residual = orient * std::log(c.measured / r.median);
  r.nominal_residual = orient * std::log(c.measured / c.nominal);
  r.draw_spread =
      std::abs(std::log(percentile(c.values, 0.9) / percentile(c.values, 0.1))) / (2 * kZ90);
  return r;
}

// The interval score of Gneiting and Raftery (2007) for the central 80 % interval (alpha 0.2),
// in % of the measurement: the width plus 2 / alpha times how far outside the measurement lies.
double interval_score(const BandRow& r) {
  constexpr double kAlpha = 0.2;
  double score = r.p90 - r.p10;
  if (r.measured < r.p10) score += 2 / kAlpha * (r.p10 - r.measured);
  if (r.measured > r.p90) score += 2 / kAlpha * (r.measured - r.p90);
  return 100 * score / r.measured;
}

// Coverage (with its 95 % Clopper-Pearson interval), width, misses on each side, interval score
// and the headline's error per mechanism class and overall: the honesty of the bands.
int report_bands(const std::vector<BandRow>& rows) {
  std::map<std::string, std::vector<const BandRow*>> classes;
  for (const BandRow& r : rows) classes[r.mechanism].push_back(&r);
  std::string csv =
      "class,case,measured,nominal,p10,p50,p90,inside,width_percent,headline_error_percent,"
      "interval_score_percent,pooled,distance\n";
  for (const BandRow& r : rows)
    csv += fmt::format("{},{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{:.3f},{:.3f},{:.3f},{},{}\n",
                       r.mechanism, r.id, r.measured, r.nominal, r.p10, r.p50, r.p90,
                       r.measured >= r.p10 && r.measured <= r.p90 ? 1 : 0,
                       100 * (r.p90 - r.p10) / r.p50, signed_error_percent(r.p50, r.measured),
                       interval_score(r), r.pooled, r.distance);
  write_file_atomic(opts.out_dir + "/uncertainty.csv", csv);
  std::printf(
      "\nuncertainty bands (p10-p90 of %d draws of each scenario's defaults x the model's error "
      "measured on the other sources' cases, seed %lld)\n",
      opts.uncertainty.samples(), opts.uncertainty.seed);
  std::printf("%-28s %5s %9s %13s %8s %6s %6s %9s %9s\n", "class", "cases", "coverage",
              "95 % interval", "width", "below", "above", "int.score", "|error|");
  double coverage = 0, width = 0;
  auto line = [&](const std::string& name, const std::vector<const BandRow*>& members) {
    int inside = 0, below = 0, above = 0;
    std::vector<double> widths, errors;
    double score = 0;
    for (const BandRow* r : members) {
      if (r->measured < r->p10)
        ++below;
      else if (r->measured > r->p90)
        ++above;
      else
        ++inside;
      widths.push_back(100 * (r->p90 - r->p10) / r->p50);
      errors.push_back(std::abs(signed_error_percent(r->p50, r->measured)));
      score += interval_score(*r);
    }
    const int n = static_cast<int>(members.size());
    const double share = 100.0 * inside / n;
    const ShareInterval ci = clopper_pearson(inside, n);
    std::printf("%-28s %5d %8.1f%% %5.1f-%5.1f%% %7.1f%% %6d %6d %8.1f%% %8.1f%%\n", name.c_str(),
                n, share, 100 * ci.low, 100 * ci.high, median(widths), below, above, score / n,
                median(errors));
    if (name == "overall") {
      coverage = share;
      width = median(widths);
    }
  };
  for (const auto& [name, members] : classes) line(name, members);
  std::vector<const BandRow*> all;
  for (const BandRow& r : rows) all.push_back(&r);
  if (!all.empty()) line("overall", all);
  std::printf("bands table     %s/uncertainty.csv; model error rows %s/discrepancy.csv\n",
              opts.out_dir.c_str(), opts.out_dir.c_str());
  int code = kExitOk;
  if (opts.min_coverage >= 0 && coverage < opts.min_coverage) {
    std::printf("FAIL: coverage %.1f %% below %.1f %%\n", coverage, opts.min_coverage);
    code = kExitFailure;
  }
  if (opts.max_coverage >= 0 && coverage > opts.max_coverage) {
    std::printf("FAIL: coverage %.1f %% above %.1f %% (bands too wide to say much)\n", coverage,
                opts.max_coverage);
    code = kExitFailure;
  }
  if (opts.max_width >= 0 && width > opts.max_width) {
    std::printf("FAIL: median band width %.1f %% above %.1f %%\n", width, opts.max_width);
    code = kExitFailure;
  }
  return code;
}

// Bands of every case: its draws x the model error of its class estimated without its own
// source (leave-one-source-out). `pool`: this run's residual rows plus the repository's for
// cases this run did not simulate (a subset still sees every other source).
std::vector<BandRow> leave_one_source_out(const std::vector<CaseDraws>& cases,
                                          const std::vector<ResidualRow>& pool) {
  std::vector<BandRow> rows;
  for (const CaseDraws& c : cases) {
    const Discrepancy d = estimate_discrepancy(pool, c.mechanism, c.support, c.source);
    const Band b = combined_band(anchored_draws(c.values, d, c.nominal), d, c.rate);
    rows.push_back({c.mechanism.name(), c.id, d.pooled, c.measured, c.nominal, b.p10, b.p50, b.p90,
                    static_cast<int>(d.distance.size())});
  }
  std::stable_sort(rows.begin(), rows.end(), [](const BandRow& a, const BandRow& b) {
    return a.mechanism != b.mechanism ? a.mechanism < b.mechanism : a.id < b.id;
  });
  return rows;
}

std::vector<std::string> scenario_files(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    const auto kind = special_file_kind(dir);
    throw InputError(SourceLocation{dir, 0, 0},
                     kind ? "it is " + *kind + ", not a folder of validation scenarios"
                          : std::string("not a folder of validation scenarios"));
  }
  std::vector<std::string> files;
  for (const auto& entry : fs::recursive_directory_iterator(dir)) {
    if (entry.is_regular_file() && entry.path().extension() == ".yaml")
      files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  if (files.empty()) throw InputError(SourceLocation{dir, 0, 0}, "holds no *.yaml scenario");
  return files;
}

// results file of one scenario: its path below DIR with '/' turned into "__".
std::string run_file(const std::string& relative) {
  std::string name = fs::path(relative).replace_extension("").string();
  std::string flat;
  for (char ch : name) flat += ch == '/' ? std::string("__") : std::string(1, ch);
  return opts.out_dir + "/runs/" + flat + ".json";
}

// Draws the scatter plot; a missing interpreter is a note, not a failure (the CSV is the result).
void draw_plot(const std::string& csv, const std::string& png) {
  const std::string python = python_interpreter();
  const std::string script = reports_directory() + "/validation_plot.py";
  std::error_code ec;
  if (!fs::exists(python, ec) || !fs::is_regular_file(script, ec)) {
    std::printf("plot            skipped: needs %s with matplotlib and %s\n", python.c_str(),
                script.c_str());
    return;
  }
  if (run_python(script, {csv, png}) == 0) {
    std::printf("plot            %s\n", png.c_str());
  } else {
    std::printf("plot            failed (%s %s)\n", python.c_str(), script.c_str());
  }
}

int run() {
  if (opts.measured_only && opts.measured.empty())
    throw InputError({"<--measured-only>"}, "needs --measured FILE (the points to predict)");
  if (opts.dir.empty()) opts.dir = scenarios_directory() + "/validation";
  std::vector<std::string> files;
  if (!opts.measured_only) files = scenario_files(opts.dir);
  check_output_folder(opts.out_dir, "-o");
  std::vector<std::string> labels;  // a scenario's name in the report and in runs/
  for (const std::string& f : files) labels.push_back(fs::relative(f, opts.dir).string());
  std::vector<ValidationSpec> measured_specs;
  if (!opts.measured.empty()) {
    const MeasuredFile m = read_measured_file(opts.measured);
    for (const MeasuredCase& point : m.cases) {
      ValidationSpec spec;
      spec.file = point.scenario;
      spec.source = m.source;
      spec.cases.push_back(point.c);
      measured_specs.push_back(spec);
      files.push_back(point.scenario);
      labels.push_back("local/" + fs::path(point.scenario).filename().string());
    }
  }
  // Every section and every runnable scenario is read before anything runs: a typo fails fast.
  std::vector<ValidationSpec> specs;
  std::vector<Scenario> scenarios(files.size());
  std::vector<size_t> runnable;
  for (size_t i = 0; i < files.size(); ++i) {
    const size_t published = files.size() - measured_specs.size();
    specs.push_back(i < published ? read_validation_spec(files[i]) : measured_specs[i - published]);
    if (!specs[i].pending.empty()) continue;
    scenarios[i] = load_scenario(files[i]);
    runnable.push_back(i);
  }
  auto relative = [&](size_t i) { return labels[i]; };
  std::map<std::string, size_t> seen;  // a measurement is one case, in one file
  for (size_t i = 0; i < files.size(); ++i) {
    for (const ValidationCase& c : specs[i].cases) {
      auto [it, fresh] = seen.emplace(c.id, i);
      if (!fresh) {
        throw InputError(SourceLocation{files[i], 0, 0},
                         "case " + c.id + " is also validated by " + files[it->second]);
      }
    }
  }

  const bool uncertain = opts.uncertainty.given();
  const size_t draws_per_scenario = uncertain ? opts.uncertainty.samples() : 0;
  const std::vector<std::vector<double>> design =
      uncertain ? uncertainty_design(static_cast<int>(draws_per_scenario), opts.uncertainty.seed)
                : std::vector<std::vector<double>>{};
  // Each run (a scenario's nominal one, each of its draws) is one task: the draws of a large
  // scenario spread over the jobs instead of queueing behind each other in one process (the
  // 128-GPU parameter-server case takes 30-40 s of CPU per run: 9 of them back to back on one
  // core held the whole command up).
  const size_t per_scenario = 1 + draws_per_scenario;
  // Largest jobs first (their runs take longest), so that no long run starts last.
  std::vector<size_t> order = runnable;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return scenarios[a].cluster.total_gpus() > scenarios[b].cluster.total_gpus();
  });
  std::vector<size_t> tasks;
  for (size_t i : order)
    for (size_t k = 0; k < per_scenario; ++k) tasks.push_back(i * per_scenario + k);
  PoolOptions pool;
  pool.jobs = resolve_jobs(opts.jobs);
  std::map<size_t, std::string> failures;
  // Progress: each run weighs its estimated cost (a draw reports headline figures only, which
  // may fold or merge a node's flows: it can cost a twentieth of its nominal run).
  std::vector<double> nominal_cost(scenarios.size(), 0.0), draw_cost(scenarios.size(), 0.0);
  for (size_t i : runnable) {
    nominal_cost[i] = estimated_run_seconds(scenarios[i]);
    draw_cost[i] = estimated_run_seconds(scenarios[i], true);
  }
  std::vector<double> task_cost;
  std::map<size_t, size_t> position;  // task -> its place in the progress
  for (size_t t : tasks) {
    position[t] = task_cost.size();
    const size_t i = t / per_scenario;
    task_cost.push_back(t % per_scenario == 0 ? nominal_cost[i] : draw_cost[i]);
  }
  RunProgress progress(uncertain ? "validate (nominal runs and draws)" : "validate", task_cost,
                       stderr_is_terminal(), stderr);
  progress.set_jobs(pool.jobs);
  {
    // A scenario's draws cost alike; its nominal run (links, no fold) is a group of its own.
    std::vector<size_t> groups;
    for (size_t t : tasks) groups.push_back(2 * (t / per_scenario) + (t % per_scenario ? 1 : 0));
    progress.set_groups(std::move(groups));
  }
  run_in_processes(
      tasks, pool,
      [&](size_t task) {
        const size_t i = task / per_scenario, k = task % per_scenario;
        SimOptions sim;
        sim.trace = TraceGpus::none();
        sim.baseline = needs_baseline(specs[i].cases);
        const std::string run = run_file(relative(i));
        if (k == 0) {
          write_file_atomic(run, result_to_json(simulate_here(scenarios[i], sim)).dump(2) + "\n");
        } else {
          // A draw is read for its headline figures and buckets only: without links it folds
          // wherever the cluster is regular (symmetry.h), as simulate's and compare's draws do.
          sim.measure_links = false;
          const std::vector<LedgerEntry> ledger = build_ledger(scenarios[i]);
          const Scenario drawn = drawn_scenario(scenarios[i], ledger, design[k - 1]);
          write_file_atomic(draw_file(run, k - 1),
                            result_to_json(simulate_here(drawn, sim)).dump() + "\n");
        }
      },
      [&](const TaskOutcome& outcome) {
        const size_t i = outcome.task / per_scenario;
        if (outcome.exit_code != 0 && !failures.count(i)) failures[i] = outcome.error;
        progress.run_took(position.at(outcome.task), outcome.wall_seconds);
      },
      [] {});
  progress.finish();

  std::vector<CaseRow> rows;
  std::vector<CaseDraws> case_draws;
  for (size_t i = 0; i < files.size(); ++i) {
    SimulationResult result;
    std::vector<SimulationResult> draws;
    if (uncertain && specs[i].pending.empty() && !failures.count(i))
      for (size_t k = 0; k < draws_per_scenario; ++k)
        draws.push_back(result_from_json(
            nlohmann::json::parse(read_file(draw_file(run_file(relative(i)), k)))));
    std::string failure;
    const bool pending = !specs[i].pending.empty();
    if (!pending) {
      if (failures.count(i)) {
        failure = failures[i];
      } else {
        result = result_from_json(nlohmann::json::parse(read_file(run_file(relative(i)))));
      }
    }
    for (const ValidationCase& c : specs[i].cases) {
      CaseRow row{c, relative(i), specs[i].source, "ok", 0, 0, ""};
      if (pending) {
        row.status = "pending";
        row.message = specs[i].pending;
      } else if (!failure.empty()) {
        row.status = "failed";
        row.message = failure;
      } else {
        const Prediction p = predict_case(c, result);
        if (!p.ok) {
          row.status = "failed";
          row.message = p.error;
        } else {
          row.predicted = p.value;
          row.error_percent = signed_error_percent(p.value, c.measured);
          std::vector<double> values;
          for (const SimulationResult& d : draws) {
            const Prediction q = predict_case(c, d);
            if (q.ok) values.push_back(q.value);
          }
          const bool positive =
              std::all_of(values.begin(), values.end(), [](double v) { return v > 0; });
          if (!values.empty() && values.size() == draws.size() && p.value > 0 && positive) {
            const bool collective = c.metric == ValidationMetric::kBusBandwidth ||
                                    c.metric == ValidationMetric::kAllReduceTime;
            const std::string label = relative(i);
            const size_t slash = label.find('/');
            case_draws.push_back(
                {c.id, slash == std::string::npos ? std::string("local") : label.substr(0, slash),
                 classify_mechanism(scenarios[i], result, collective),
                 support_features(scenarios[i]), c.measured, p.value,
                 c.metric != ValidationMetric::kIterationTime &&
                     c.metric != ValidationMetric::kAllReduceTime,
                 values});
          }
        }
      }
      rows.push_back(row);
    }
  }
  std::stable_sort(rows.begin(), rows.end(), [](const CaseRow& a, const CaseRow& b) {
    return a.c.group != b.c.group ? a.c.group < b.c.group : a.c.id < b.c.id;
  });

  const std::vector<ErrorSummary> summaries = summarise_errors(case_errors(rows));
  std::printf("%s\n", format_validation_report(rows, summaries).c_str());
  const PairRanking pairs = rank_pairs(rows);
  std::printf("%s\n", format_pair_ranking(pairs).c_str());
  // The error and the ranking side by side: one answers "how far off", the other "does it pick
  // the faster alternative".
  std::printf("accuracy        median |error| %.1f %% over %d cases; %s\n",
              summaries.back().median_abs, summaries.back().cases,
              pair_ranking_brief(pairs).c_str());
  const std::string csv = opts.out_dir + "/validation.csv";
  write_file_atomic(csv, format_csv(validation_csv(rows)));
  std::printf("table           %s\n", csv.c_str());
  if (!opts.no_plot) draw_plot(csv, opts.out_dir + "/validation.png");

  int code = failures.empty() ? kExitOk : kExitFailure;
  for (const CaseRow& r : rows)
    if (r.status == "failed") code = kExitFailure;
  if (uncertain) {
    // This run's residual rows, written as the repository keeps them (discrepancy.csv: copy it
    // to scenarios/validation/ after a full run) and read back, so that the bands below use
    // exactly the rounded values the file holds.
    std::vector<ResidualRow> fresh;
    for (const CaseDraws& c : case_draws) fresh.push_back(residual_row(c));
    std::stable_sort(fresh.begin(), fresh.end(),
                     [](const ResidualRow& a, const ResidualRow& b) { return a.id < b.id; });
    const std::string table = format_residual_rows(fresh);
    write_file_atomic(opts.out_dir + "/discrepancy.csv", table);
    std::vector<ResidualRow> pool = parse_residual_rows(table, opts.out_dir + "/discrepancy.csv");
    const std::string repository =
        opts.model_error.empty() ? default_residual_file() : opts.model_error;
    std::error_code ec;
    if (!opts.model_error.empty() || fs::exists(repository, ec)) {
      std::map<std::string, bool> ran;
      for (const ResidualRow& r : pool) ran[r.id] = true;
      for (const ResidualRow& r : read_residual_file(repository))
        if (!ran.count(r.id)) pool.push_back(r);
    }
    if (report_bands(leave_one_source_out(case_draws, pool)) != kExitOk) code = kExitFailure;
  }
  const ErrorSummary& overall = summaries.back();
  if (opts.max_median > 0 && overall.median_abs > opts.max_median) {
    std::printf("FAIL: overall median |error| %.1f%% exceeds %.1f%%\n", overall.median_abs,
                opts.max_median);
    code = kExitFailure;
  }
  if (opts.max_case > 0 && overall.max_abs > opts.max_case) {
    std::printf("FAIL: case %s has |error| %.1f%% > %.1f%%\n", overall.worst_case.c_str(),
                overall.max_abs, opts.max_case);
    code = kExitFailure;
  }
  return code;
}

const bool registered = register_command({
    "validate",
    "Compare predictions with published measurements (scenarios/validation)",
    40,
    [](CLI::App* app) {
      app->add_option("dir", opts.dir,
                      "Folder of validation scenarios, searched recursively (default: "
                      "share/ddpsim/scenarios/validation beside the binary)");
      app->add_option("--measured", opts.measured,
                      "Also predict the points of this measurement file of the machine at hand "
                      "(calibrate/pytorch/ground_truth.py writes it), in the group local");
      app->add_flag("--measured-only", opts.measured_only,
                    "Predict only the points of --measured, not the published cases");
      app->add_option("-o,--out", opts.out_dir,
                      "Output folder for validation.csv, validation.png and runs/ (default "
                      "out/validation)");
      add_jobs_option(app, &opts.jobs, "Scenarios simulated in parallel");
      app->add_option("--max-median", opts.max_median,
                      "Exit 1 when the overall median |error| exceeds this many percent")
          ->check(finite_number(0));
      app->add_option("--max-case", opts.max_case,
                      "Exit 1 when any case's |error| exceeds this many percent")
          ->check(finite_number(0));
      app->add_flag("--no-plot", opts.no_plot, "Skip validation.png");
      opts.uncertainty.default_draws = 16;
      add_uncertainty_options(app, &opts.uncertainty,
                              "Also run draws of each scenario's defaulted inputs and report the "
                              "coverage and width of the p10-p90 bands");
      app->add_option("--min-coverage", opts.min_coverage,
                      "With --uncertainty: exit 1 when the overall coverage is below this %")
          ->check(finite_number(0));
      app->add_option("--max-coverage", opts.max_coverage,
                      "With --uncertainty: exit 1 when the overall coverage is above this %")
          ->check(finite_number(0));
      app->add_option("--model-error", opts.model_error,
                      "With --uncertainty: the model-error rows (discrepancy.csv) of cases this "
                      "run does not simulate (default: the repository's "
                      "scenarios/validation/discrepancy.csv)");
      app->add_option("--max-width", opts.max_width,
                      "With --uncertainty: exit 1 when the median band width is above this % of "
                      "the prediction")
          ->check(finite_number(0));
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
