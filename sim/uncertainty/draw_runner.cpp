#include "sim/uncertainty/draw_runner.h"

#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>

#include "sim/cost/iteration_plan.h"
#include "sim/cost/resource_estimate.h"
#include "sim/engine/simulation.h"
#include "sim/model/model_zoo.h"
#include "sim/results/result_json.h"
#include "sim/sweep/process_pool.h"
#include "sim/sweep/run_progress.h"
#include "sim/text/input_error.h"

namespace ddpsim {
namespace {

SimOptions draw_options() {
  SimOptions o;
  o.trace = TraceGpus::none();
  o.baseline = false;
  o.measure_links = false;  // the bands need no link utilisation (a tenth of a draw's CPU)
  return o;
}

}  // namespace

double estimated_run_seconds(const Scenario& scenario, bool headline_only) {
  // What every run costs besides its simulation, in a forked child: the fork, SimGrid's setup,
  // the result written (validate's 180 runs of dle-resnet50, mostly this: 26 ms each, 2026-11-30).
  constexpr double kRunSeconds = 0.025;
  try {
    Model model;
    std::string error;
    if (!build_model(scenario.model, &model, &error)) return 0;
    return kRunSeconds +
           estimate_resources(scenario, build_iteration_plan(scenario, model), headline_only)
               .wall_seconds;
  } catch (const std::exception&) {
    return 0;
  }
}

std::vector<SimulationResult> run_scenarios(const std::vector<Scenario>& scenarios, int jobs,
                                            const std::string& progress) {
  std::vector<SimulationResult> results(scenarios.size());
  std::unique_ptr<RunProgress> shown;
  if (!progress.empty()) {
    std::vector<double> costs;
    for (const Scenario& s : scenarios) costs.push_back(estimated_run_seconds(s, true));
    shown = std::make_unique<RunProgress>(progress, std::move(costs), stderr_is_terminal(), stderr);
    shown->set_jobs(jobs);
  }
  if (jobs <= 1 || scenarios.size() <= 1) {
    for (size_t i = 0; i < scenarios.size(); ++i) {
      results[i] = simulate(scenarios[i], draw_options());
      if (shown) shown->run_done(i);
    }
    if (shown) shown->finish();
    return results;
  }
  namespace fs = std::filesystem;
  std::string pattern = (fs::temp_directory_path() / "ddpsim-draws-XXXXXX").string();
  if (mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot create a temporary folder for the uncertainty draws");
  const fs::path folder(pattern);
  auto file_of = [&](size_t i) { return folder / (std::to_string(i) + ".json"); };
  std::vector<size_t> tasks(scenarios.size());
  for (size_t i = 0; i < tasks.size(); ++i) tasks[i] = i;
  PoolOptions pool;
  pool.jobs = jobs;
  std::string failure;
  int failure_code = 0;
  run_in_processes(
      tasks, pool,
      [&](size_t i) {
        const SimulationResult r = run_simulation(scenarios[i], draw_options());
        std::ofstream(file_of(i)) << result_to_json(r).dump();
      },
      [&](const TaskOutcome& outcome) {
        if (outcome.exit_code != 0 && failure.empty()) {
          failure = outcome.error;
          failure_code = outcome.exit_code;
        }
        if (shown) shown->run_took(outcome.task, outcome.wall_seconds);
      },
      [] {});
  if (shown) shown->finish();
  if (failure.empty()) {
    for (size_t i = 0; i < scenarios.size(); ++i) {
      std::ifstream in(file_of(i));
      std::stringstream text;
      text << in.rdbuf();
      results[i] = result_from_json(nlohmann::json::parse(text.str()));
    }
  }
  std::error_code ec;
  fs::remove_all(folder, ec);
  if (!failure.empty()) {
    if (failure_code == 2) throw InputError(failure);
    throw std::runtime_error("an uncertainty draw failed: " + failure);
  }
  return results;
}

}  // namespace ddpsim
