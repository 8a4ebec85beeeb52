// ddpsim simulate SCENARIO [-o OUTDIR] [--set key.path=value ...]
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/cost/iteration_plan.h"
#include "sim/cost/resource_estimate.h"
#include "sim/engine/simulation.h"
#include "sim/model/model_zoo.h"
#include "sim/results/result_json.h"
#include "sim/results/summary_table.h"
#include "sim/scenario/scenario_json.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/util/atomic_file.h"

namespace ddpsim::cli {
namespace {

struct Options {
  std::string scenario;
  std::string out_dir;
  std::vector<std::string> overrides;
  bool json = false;
  bool no_baseline = false;
  int trace_gpus = 8;
  double max_wall = 0;
} opts;

// Without --max-wall a run expected to take longer than this is refused before it starts.
constexpr double kDefaultWallLimitSeconds = 3600;

int run() {
  const Scenario scenario = load_scenario(opts.scenario, opts.overrides);
  Model model;
  std::string error;
  if (!build_model(scenario.model, &model, &error))
    throw InputError({scenario.source, 0, 0}, error);
  // Refuse what this machine cannot simulate before building anything (resource_estimate.h).
  check_resources(scenario, estimate_resources(scenario, build_iteration_plan(scenario, model)),
                  machine_limits(opts.max_wall > 0 ? 0 : kDefaultWallLimitSeconds));

  SimOptions sim;
  sim.trace_gpus = opts.trace_gpus;
  sim.baseline = !opts.no_baseline;
  sim.max_wall_seconds = opts.max_wall;
  const SimulationResult result = simulate(scenario, sim);

  const std::string out_dir = opts.out_dir.empty() ? "out/" + scenario.name : opts.out_dir;
  nlohmann::json doc;
  doc["scenario"] = scenario_to_json(scenario);
  doc["result"] = result_to_json(result);
  write_file_atomic(out_dir + "/results.json", doc.dump(2) + "\n");
  write_file_atomic(out_dir + "/trace.json", trace_to_chrome_json(result).dump() + "\n");

  if (opts.json) {
    std::printf("%s\n", doc.dump(2).c_str());
  } else {
    std::printf("%s", format_summary(scenario, model, result).c_str());
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
      app->add_option("--set", opts.overrides,
                      "Override a scenario value, e.g. --set cluster.nodes=8 (repeatable)");
      app->add_flag("--json", opts.json, "Print results.json to stdout instead of the table");
      app->add_flag("--no-baseline", opts.no_baseline,
                    "Skip the single-GPU run (no scaling efficiency)");
      app->add_option("--trace-gpus", opts.trace_gpus, "GPUs recorded in trace.json")
          ->check(CLI::NonNegativeNumber);
      app->add_option("--max-wall", opts.max_wall,
                      "Stop the simulation after this many wall-clock seconds and write the "
                      "completed steps, marked partial (also lifts the 1 h refusal of runs "
                      "expected to be slower)")
          ->check(CLI::PositiveNumber);
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
