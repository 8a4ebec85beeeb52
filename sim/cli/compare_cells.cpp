#include "sim/cli/compare_cells.h"

#include <fmt/format.h>
#include <stdlib.h>

#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <stdexcept>

#include "sim/engine/simulation.h"
#include "sim/output/atomic_file.h"
#include "sim/sweep/process_pool.h"
#include "sim/text/input_error.h"

namespace ddpsim::cli {
namespace {

Outcome outcome_of(const SimulationResult& r) {
  Outcome o;
  o.samples_per_second = r.samples_per_second;
  o.iteration_time = r.iteration_time;
  o.exposed_comm_share = r.exposed_comm_share;
  o.memory = r.memory.total;
  o.comm_share = r.comm_share;
  o.data_wait_share = r.iteration_time > 0 ? r.breakdown.data_wait / r.iteration_time : 0;
  o.tokens_per_second = r.tokens_per_second();
  o.mfu = r.mfu();
  o.hfu = r.hfu();
  o.gpus = r.gpus;
  o.nodes = r.nodes;
  o.max_batch = r.memory.max_batch_that_fits;
  o.fits = r.memory.fits;
  o.bottleneck = r.bottleneck;
  return o;
}

// Hexadecimal floats round-trip every double exactly: -j N prints what -j 1 prints.
std::string encode(const Outcome& o) {
  return fmt::format("{:a} {:a} {:a} {:a} {:a} {:a} {:a} {:a} {:a} {} {} {} {} {}\n",
                     o.samples_per_second, o.iteration_time, o.exposed_comm_share, o.memory,
                     o.comm_share, o.data_wait_share, o.tokens_per_second, o.mfu, o.hfu, o.gpus,
                     o.nodes, o.max_batch, o.fits ? 1 : 0, o.bottleneck);
}

Outcome decode(const std::string& text) {
  std::istringstream in(text);
  std::string a, b, c, d, e, f, g, h, i;
  Outcome o;
  int fits = 0;
  in >> a >> b >> c >> d >> e >> f >> g >> h >> i >> o.gpus >> o.nodes >> o.max_batch >> fits;
  std::getline(in >> std::ws, o.bottleneck);
  if (!in && !in.eof()) throw std::runtime_error("compare: unreadable cell result '" + text + "'");
  o.samples_per_second = std::strtod(a.c_str(), nullptr);
  o.iteration_time = std::strtod(b.c_str(), nullptr);
  o.exposed_comm_share = std::strtod(c.c_str(), nullptr);
  o.memory = std::strtod(d.c_str(), nullptr);
  o.comm_share = std::strtod(e.c_str(), nullptr);
  o.data_wait_share = std::strtod(f.c_str(), nullptr);
  o.tokens_per_second = std::strtod(g.c_str(), nullptr);
  o.mfu = std::strtod(h.c_str(), nullptr);
  o.hfu = std::strtod(i.c_str(), nullptr);
  o.fits = fits != 0;
  return o;
}

}  // namespace

std::vector<Outcome> simulate_all(const std::vector<const Scenario*>& scenarios, int jobs,
                                  const std::function<std::string(size_t)>& label) {
  std::vector<Outcome> outcomes(scenarios.size());
  if (jobs <= 1 || scenarios.size() <= 1) {
    for (size_t i = 0; i < scenarios.size(); ++i) {
      std::fprintf(stderr, "%s ...\n", label(i).c_str());
      outcomes[i] = outcome_of(simulate(*scenarios[i], {TraceGpus::none(), false}));
    }
    return outcomes;
  }
  namespace fs = std::filesystem;
  std::string pattern = (fs::temp_directory_path() / "ddpsim-compare-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    throw std::runtime_error("cannot create a temporary folder for -j: " + pattern);
  const fs::path folder = pattern;
  struct Cleanup {
    fs::path folder;
    ~Cleanup() {
      std::error_code ignored;
      fs::remove_all(folder, ignored);
    }
  } cleanup{folder};
  auto file = [&](size_t i) { return folder / std::to_string(i); };
  std::vector<size_t> tasks(scenarios.size());
  for (size_t i = 0; i < tasks.size(); ++i) tasks[i] = i;
  PoolOptions pool;
  pool.jobs = jobs;
  volatile std::sig_atomic_t stop = 0;  // after the first failure, start nothing more
  pool.stop = &stop;
  std::optional<TaskOutcome> failed;
  size_t done = 0;
  run_in_processes(
      tasks, pool,
      [&](size_t i) {
        write_file_atomic(
            file(i).string(),
            encode(outcome_of(simulate_here(*scenarios[i], {TraceGpus::none(), false}))));
      },
      [&](const TaskOutcome& outcome) {
        if (outcome.interrupted) return;
        std::fprintf(stderr, "%s done (%zu/%zu)\n", label(outcome.task).c_str(), ++done,
                     tasks.size());
        if (outcome.exit_code != 0 && !failed) {
          failed = outcome;
          stop = 1;
        }
      },
      [] {});
  if (failed) {
    if (failed->exit_code == kExitBadInput) throw InputError(failed->error);
    throw std::runtime_error(label(failed->task) + ": " + failed->error);
  }
  for (size_t i = 0; i < scenarios.size(); ++i) {
    std::ifstream in(file(i));
    std::stringstream text;
    text << in.rdbuf();
    outcomes[i] = decode(text.str());
  }
  return outcomes;
}

}  // namespace ddpsim::cli
