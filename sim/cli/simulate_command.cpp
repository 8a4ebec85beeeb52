// ddpsim simulate SCENARIO [-o OUTDIR] [--set key.path=value ...] [--uncertainty [N] [-j J]
//                  [--seed S]]
#include <cstdio>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/cli/option_checks.h"
#include "sim/cli/summary_table.h"
#include "sim/cost/iteration_plan.h"
#include "sim/cost/resource_estimate.h"
#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "sim/ledger/ledger.h"
#include "sim/model/model_zoo.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_folder.h"
#include "sim/results/hta_trace.h"
#include "sim/results/provenance.h"
#include "sim/results/result_json.h"
#include "sim/scenario/scenario_json.h"
#include "sim/uncertainty/uncertainty.h"
#include "sim/validation/residual_file.h"

namespace ddpsim::cli {
namespace {

// One Kineto-like trace per traced GPU (sim/results/hta_trace.h), the folder Holistic Trace
// Analysis loads: TraceAnalysis(trace_dir="OUT/hta"). Rank files of an earlier run go first: a
// GPU no longer traced must not be read as part of this run.
void write_hta_traces(const std::string& dir, const SimulationResult& result, const GpuSpec& gpu) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::is_directory(dir, ec))
    for (const auto& entry : fs::directory_iterator(dir, ec)) {
      const std::string name = entry.path().filename().string();
      if (name.rfind("rank", 0) == 0 && entry.path().extension() == ".json")
        fs::remove(entry.path(), ec);
    }
  const auto traces = hta_traces(result, gpu);
  if (traces.empty()) return;
  fs::create_directories(dir);
  for (const auto& [rank, trace] : traces)
    write_file_atomic(dir + "/rank" + std::to_string(rank) + ".json", trace.dump() + "\n");
}

struct Options {
  std::string scenario;
  std::string out_dir;
  std::vector<std::string> overrides;
  bool json = false;
  bool no_baseline = false;
  bool headline_only = false;
  std::string trace_gpus = "auto";
  double max_wall = 0;
  UncertaintyFlags uncertainty;
  int jobs = 1;
} opts;

// Without --max-wall a run expected to take longer than this is refused before it starts.
constexpr double kDefaultWallLimitSeconds = 3600;

int run() {
  const Scenario scenario = load_scenario(opts.scenario, opts.overrides);
  // Checked before the run, so a wrong -o costs nothing and leaves nothing behind.
  const std::string out_dir = opts.out_dir.empty() ? "out/" + scenario.name : opts.out_dir;
  check_output_folder(out_dir, "-o");
  Model model;
  std::string error;
  if (!build_model(scenario.model, &model, &error))
    throw InputError({scenario.source, 0, 0}, error);
  // Refuse what this machine cannot simulate before building anything (resource_estimate.h).
  check_resources(
      scenario,
      estimate_resources(scenario, build_iteration_plan(scenario, model), opts.headline_only),
      machine_limits(opts.max_wall > 0 ? 0 : kDefaultWallLimitSeconds));

  SimOptions sim;
  std::string trace_error;
  parse_trace_gpus(opts.trace_gpus, &sim.trace, &trace_error);  // checked by trace_gpus_spec()
  traced_ranks(scenario, sim.trace);  // a GPU beyond the cluster is refused before the run
  sim.baseline = !opts.no_baseline;
  sim.max_wall_seconds = opts.max_wall;
  if (opts.headline_only) {
    sim.trace = TraceGpus::none();
    sim.measure_links = false;
  }
  const SimulationResult result = simulate(scenario, sim);
  const std::vector<LedgerEntry> ledger = build_ledger(scenario);
  UncertaintyReport uncertainty;
  std::optional<ResultBands> bands;
  const bool uncertain = opts.uncertainty.given();
  if (uncertain) {
    UncertaintyOptions u;
    u.samples = opts.uncertainty.samples();
    u.seed = static_cast<uint64_t>(opts.uncertainty.seed);
    u.jobs = opts.jobs;
    use_model_error(&u, scenario, result, read_residual_file(default_residual_file()));
    u.progress = "simulate --uncertainty";
    uncertainty = assess_uncertainty(scenario, ledger, u);
    bands = ResultBands{uncertainty.samples, uncertainty.samples_per_second,
                        uncertainty.iteration_time, uncertainty.exposed_comm_share};
  }

  const nlohmann::json provenance = provenance_to_json(current_provenance());
  nlohmann::json doc;
  doc["scenario"] = scenario_to_json(scenario);
  doc["result"] = result_to_json(result);
  doc["result"]["assumptions"] = ledger_to_json(ledger);
  if (uncertain) {
    doc["result"]["uncertainty"] = uncertainty_to_json(uncertainty);
    doc["result"]["headline"] = headline_to_json(uncertainty);
    doc["result"]["nominal"] = nominal_to_json(result);
  }
  doc["provenance"] = provenance;
  nlohmann::json trace = trace_to_chrome_json(result);
  trace["otherData"]["provenance"] = provenance;
  write_file_atomic(out_dir + "/results.json", doc.dump(2) + "\n");
  write_file_atomic(out_dir + "/trace.json", trace.dump() + "\n");
  write_hta_traces(out_dir + "/hta", result, scenario.cluster.gpu);

  if (opts.json) {
    std::printf("%s\n", doc.dump(2).c_str());
  } else {
    std::printf("%s",
                format_summary(scenario, model, result, ledger, bands ? &*bands : nullptr).c_str());
    if (uncertain) {
      std::printf("%s", format_model_error(uncertainty.model_error).c_str());
      std::printf(
          "uncertainty     p10-p90 over %d draws of %d defaulted input%s (seed %lld); "
          "what moves throughput most (low -> high end):\n%s",
          uncertainty.samples, uncertainty.defaulted, uncertainty.defaulted == 1 ? "" : "s",
          opts.uncertainty.seed, format_influences(uncertainty, model.sample_unit).c_str());
      if (!uncertainty.influences.empty())
        std::printf("measure first   %s\n", uncertainty.influences.front().row->measure);
    }
    std::printf("%s\n", assumptions_line(ledger, uncertain ? &uncertainty : nullptr).c_str());
    std::printf("results         %s/results.json  (timeline: %s/trace.json, open in Perfetto)\n",
                out_dir.c_str(), out_dir.c_str());
  }
  if (result.partial) {
    std::fprintf(stderr,
                 "warning: stopped by --max-wall %g s: the results cover the completed "
                 "steps only and are marked \"partial\": true (%s)\n",
                 opts.max_wall, result.notes.c_str());
  }
  return 0;
}

const bool registered = register_command({
    "simulate",
    "Simulate a scenario: throughput, iteration breakdown, communication share, bottleneck",
    10,
    [](CLI::App* app) {
      app->add_option("scenario", opts.scenario, "Scenario YAML file")->required();
      app->add_option("-o,--out", opts.out_dir,
                      "Output directory for results.json and trace.json (default out/<name>)");
      add_repeatable(app, "--set", opts.overrides,
                     "Override a scenario value, e.g. --set cluster.nodes=8 (repeatable)");
      app->add_flag("--json", opts.json, "Print results.json to stdout instead of the table");
      app->add_flag("--no-baseline", opts.no_baseline,
                    "Skip the single-GPU run (no scaling efficiency)");
      CLI::Option* trace =
          app->add_option(
                 "--trace-gpus", opts.trace_gpus,
                 "GPUs whose last step trace.json shows: auto (the first GPU of every node, up to "
                 "64 nodes, and the slowest), all, none, or ranks such as 0,5,8-15")
              ->check(trace_gpus_spec());
      app->add_flag("--headline-only", opts.headline_only,
                    "Throughput, iteration breakdown, communication and bottleneck only: no "
                    "per-link figures and no timeline, which lets large jobs fold and parameter "
                    "servers merge a node's flows where that is exact (docs/scale.md)")
          ->excludes(trace);
      add_uncertainty_options(app, &opts.uncertainty,
                              "Also run draws of the defaulted inputs (result.assumptions): "
                              "p10-p90 bands and the inputs that move throughput most");
      app->add_option("-j,--jobs", opts.jobs, "Draws simulated in parallel (processes)")
          ->check(whole_number(1));
      app->add_option("--max-wall", opts.max_wall,
                      "Stop the simulation after this many wall-clock seconds (unset: no limit) "
                      "and write the "
                      "completed steps, marked partial (also lifts the 1 h refusal of runs "
                      "expected to be slower)")
          ->check(finite_number(0, true));
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
