// Stopping at the steady state (sim/engine/steady_state.h): a deterministic run that stops once
// its first two measured steps agree must report what the full run reports, to 1e-9 relative,
// for every bundled scenario, every sharding mode and synchronous parameter servers; a run that
// cannot stop (drawn stragglers, asynchronous servers or pulls read in forward, a first epoch) or
// whose steps differ must be byte-identical to the run with the stop switched off. Each case runs
// both ways (SimOptions::steady_stop).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "sim/engine/simulation.h"
#include "sim/results/result_json.h"
#include "sim/input/scenario_loader.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;

SimulationResult run(const Scenario& s, bool steady_stop) {
  SimOptions o;
  o.trace = TraceGpus{};  // auto: the first GPU of every node
  o.baseline = false;
  o.steady_stop = steady_stop;
  return simulate(s, o);
}

// As an uncertainty draw runs: no links, no trace (parameter servers then use node lanes).
SimulationResult run_headline(const Scenario& s, bool steady_stop) {
  SimOptions o;
  o.trace = TraceGpus::none();
  o.baseline = false;
  o.measure_links = false;
  o.steady_stop = steady_stop;
  return simulate(s, o);
}

bool stopped(const SimulationResult& r) { return r.notes.find("steady state:") != std::string::npos; }

void expect_close(double stop, double full, const std::string& what) {
  EXPECT_LE(std::fabs(stop - full), 1e-9 * std::max(std::fabs(full), 1e-300)) << what;
}

// Every number of the two results, to 1e-9 of the full run's; byte-identical when no stop.
// Returns whether the run stopped.
bool expect_matches_full_run(const Scenario& s, const std::string& name) {
  const SimulationResult full = run(s, false);
  const SimulationResult fast = run(s, true);
  EXPECT_FALSE(stopped(full)) << name;
  if (!stopped(fast)) {
    EXPECT_EQ(result_to_json(fast).dump(), result_to_json(full).dump()) << name;
    return false;
  }
  expect_close(fast.iteration_time, full.iteration_time, name + " iteration");
  expect_close(fast.samples_per_second, full.samples_per_second, name + " samples/s");
  expect_close(fast.comm_time, full.comm_time, name + " comm");
  const Breakdown& a = fast.breakdown;
  const Breakdown& b = full.breakdown;
  expect_close(a.data_wait, b.data_wait, name + " data wait");
  expect_close(a.forward, b.forward, name + " forward");
  expect_close(a.backward, b.backward, name + " backward");
  expect_close(a.exposed_comm, b.exposed_comm, name + " exposed comm");
  expect_close(a.straggler_wait, b.straggler_wait, name + " straggler wait");
  expect_close(a.optimizer, b.optimizer, name + " optimizer");
  expect_close(fast.bytes_sent, full.bytes_sent, name + " bytes sent");
  expect_close(fast.bytes_received, full.bytes_received, name + " bytes received");
  for (size_t c = 0; c < full.bytes_per_link_class.size(); ++c)
    expect_close(fast.bytes_per_link_class[c], full.bytes_per_link_class[c],
                 name + " link class " + std::to_string(c));
  EXPECT_EQ(fast.buckets.size(), full.buckets.size()) << name;
  for (size_t i = 0; i < std::min(fast.buckets.size(), full.buckets.size()); ++i)
    expect_close(fast.buckets[i].comm_time, full.buckets[i].comm_time, name + " bucket " + std::to_string(i));
  EXPECT_EQ(fast.links.busiest.size(), full.links.busiest.size()) << name;
  for (size_t i = 0; i < std::min(fast.links.busiest.size(), full.links.busiest.size()); ++i) {
    EXPECT_EQ(fast.links.busiest[i].name, full.links.busiest[i].name) << name;
    expect_close(fast.links.busiest[i].utilisation, full.links.busiest[i].utilisation,
                 name + " link " + full.links.busiest[i].name);
  }
  EXPECT_EQ(fast.bottleneck, full.bottleneck) << name;
  // The trace shows the reported step, one ProfilerStep per traced GPU.
  const std::string marker =
      "ProfilerStep#" + std::to_string(s.training.warmup + 1);
  EXPECT_TRUE(std::any_of(fast.trace.begin(), fast.trace.end(),
                          [&](const TraceEvent& e) { return e.name == marker; }))
      << name;
  return true;
}

std::vector<std::string> bundled() {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(std::string(DDPSIM_SOURCE_DIR) + "/scenarios"))
    if (e.path().extension() == ".yaml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// Five steps, one warm-up (the defaults): the run may stop after step 2 and save two.
const std::vector<std::string> kSteps = {"training.iterations=5", "training.warmup=1"};

TEST(SteadyState, EveryBundledScenarioMatchesItsFullRun) {
  int stops = 0, files = 0;
  for (const std::string& path : bundled()) {
    ++files;
    stops += expect_matches_full_run(load_scenario(path, kSteps), path) ? 1 : 0;
  }
  EXPECT_GE(files, 10);
  // Most bundled jobs are deterministic and settle after one warm-up step.
  EXPECT_GE(stops, files / 2) << stops << " of " << files << " stopped";
}

TEST(SteadyState, EveryShardingModeMatchesItsFullRun) {
  const std::string llama = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-16x8-h100.yaml";
  for (const char* mode : {"zero1", "zero2", "zero3", "fsdp-hybrid"}) {
    std::vector<std::string> set = kSteps;
    set.push_back(std::string("sync.sharding=") + mode);
    set.push_back("cluster.nodes=2");
    EXPECT_TRUE(expect_matches_full_run(load_scenario(llama, set), mode)) << mode;
  }
}

TEST(SteadyState, SynchronousParameterServersMatchTheirFullRun) {
  // Dedicated, colocated and BytePS servers on NVSwitch nodes over InfiniBand and over a slow
  // TCP network, the update on the worker, one GPU per node; and public cases over TCP and PCIe
  // (tf_cnn_benchmarks' colocated servers, MXNet's kvstore).
  const std::string root = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/";
  const std::vector<std::string> ps = {"sync.strategy=ps", "sync.ps.servers=2"};
  std::vector<std::pair<std::string, std::vector<std::string>>> cases;
  for (const char* placement : {"dedicated", "colocated", "byteps"})
    for (const char* nic : {"200Gbps", "10Gbps"}) {
      std::vector<std::string> set = ps;
      set.push_back(std::string("sync.ps.placement=") + placement);
      set.push_back(std::string("cluster.nic.bandwidth=") + nic);
      if (std::string(nic) == "10Gbps")
        set.insert(set.end(), {"cluster.nic.count=1", "cluster.nic.transport=tcp"});
      cases.push_back({root + "default.yaml", set});
    }
  std::vector<std::string> worker = ps;
  worker.insert(worker.end(), {"sync.ps.update=worker", "sync.ps.key_placement=hash"});
  cases.push_back({root + "default.yaml", worker});
  std::vector<std::string> single = ps;
  single.insert(single.end(),
                {"cluster.nodes=8", "cluster.gpus_per_node=1", "cluster.nic.count=1"});
  cases.push_back({root + "default.yaml", single});
  for (const char* file : {"validation/bugliarello-2017/bug-p28-inceptionv3-8.yaml",
                           "validation/tf-benchmarks-2017/tfb-awsk80-resnet50-16.yaml",
                           "validation/mxnet-large-scale/mxlsc-k80-alexnet-32.yaml"})
    cases.push_back({root + file, {}});
  int stops = 0;
  for (auto& [path, set] : cases) {
    set.insert(set.end(), kSteps.begin(), kSteps.end());
    std::string name = path;
    for (const std::string& kv : set) name += " " + kv;
    const Scenario s = load_scenario(path, set);
    stops += expect_matches_full_run(s, name) ? 1 : 0;
    const SimulationResult fast = run_headline(s, true);
    const SimulationResult every = run_headline(s, false);
    expect_close(fast.iteration_time, every.iteration_time, name + " headline-only iteration");
    expect_close(fast.comm_time, every.comm_time, name + " headline-only comm");
    expect_close(fast.breakdown.exposed_comm, every.breakdown.exposed_comm,
                 name + " headline-only exposed comm");
  }
  // Synchronous servers with eager pulls settle after one warm-up step more often than not.
  EXPECT_GE(stops, static_cast<int>(cases.size()) / 2) << stops << " of " << cases.size();
  std::printf("%d of %zu parameter-server runs stopped at their steady state\n", stops,
              cases.size());
}

TEST(SteadyState, AsynchronousServersAndPullsInForwardKeepEveryStep) {
  const std::string path = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/default.yaml";
  for (const std::vector<std::string>& set :
       {std::vector<std::string>{"sync.strategy=ps", "sync.ps.mode=async", "sync.ps.staleness=1"},
        std::vector<std::string>{"sync.strategy=ps", "sync.ps.pull=forward"}}) {
    std::vector<std::string> all = set;
    all.insert(all.end(), kSteps.begin(), kSteps.end());
    EXPECT_FALSE(expect_matches_full_run(load_scenario(path, all), set.back())) << set.back();
  }
}

TEST(SteadyState, DrawnStragglersKeepEveryStepByteForByte) {
  const std::string llama = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-16x8-h100.yaml";
  std::vector<std::string> set = kSteps;
  set.insert(set.end(), {"cluster.nodes=2", "stragglers.kind=lognormal", "stragglers.sigma=0.05"});
  EXPECT_FALSE(expect_matches_full_run(load_scenario(llama, set), "lognormal stragglers"));
}

TEST(SteadyState, ThreeStepsLeaveNothingToSave) {
  // llama2-7b-64xh100.yaml as bundled: 3 steps, 1 warm-up: the candidate would be the last.
  const std::string path = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/llama2-7b-64xh100.yaml";
  EXPECT_FALSE(expect_matches_full_run(
      load_scenario(path, {"cluster.nodes=1", "sync.sharding=zero3"}), "three steps"));
}

}  // namespace
}  // namespace ddpsim
