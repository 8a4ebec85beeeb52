// The assumption ledger and uncertainty bands (docs/assumptions.md): which inputs of a scenario
// are defaults and with what range, that stated inputs are never sampled (a fully stated scenario
// has a zero-width band), the space-filling design, common random numbers across strategies,
// tornado influences that bracket the nominal prediction, and byte-identical results.json for the
// same seed (through the binary).
#include "sim/uncertainty/uncertainty.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <utility>

#include "sim/engine/simulation.h"
#include "sim/scenario/scenario_loader.h"
#include "sim/uncertainty/latin_hypercube.h"
#include "sim/uncertainty/ledger.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

const std::string kSourceDir = DDPSIM_SOURCE_DIR;
const std::string kDefault = kSourceDir + "/scenarios/default.yaml";
ddpsim::testing::ScratchFolder scratch("ddpsim-uncertainty");

const LedgerEntry* entry(const std::vector<LedgerEntry>& ledger, const std::string& key) {
  for (const LedgerEntry& e : ledger)
    if (key == e.row->key) return &e;
  return nullptr;
}

TEST(Ledger, DefaultScenarioListsEachDefaultWithSourceAndRange) {
  const Scenario s = load_scenario(kDefault);
  const std::vector<LedgerEntry> ledger = build_ledger(s);
  // default.yaml marks its datasheet line rates and its example efficiency as assumed.
  const std::set<std::string> expected = {
      "cluster.intra_node.bandwidth", "cluster.nic.bandwidth",    "compute.efficiency",
      "compute.memory_efficiency",    "compute.overlap_slowdown", "compute.slowest_gpu",
      "compute.framework_overhead",   "sync.nccl_latency"};
  std::set<std::string> defaults;
  for (const LedgerEntry& e : ledger) {
    if (e.source != InputSource::kDefault) continue;
    defaults.insert(e.row->key);
    EXPECT_FALSE(e.why.empty()) << e.row->key;
    EXPECT_NE(std::string(e.row->measure), "") << e.row->key;
    EXPECT_LE(e.low, e.value) << e.row->key;
    EXPECT_GE(e.high, e.value) << e.row->key;
    EXPECT_LT(e.low, e.high) << e.row->key;
  }
  EXPECT_EQ(defaults, expected);
  // Inputs that do not shape this scenario (PCIe-only nodes, TCP, host staging) are not listed.
  EXPECT_EQ(entry(ledger, "cluster.pcie"), nullptr);
  EXPECT_EQ(entry(ledger, "cluster.nic.efficiency"), nullptr);
  EXPECT_EQ(entry(ledger, "cluster.host.bandwidth"), nullptr);
  // Ranges: absolute from the table, relative ones around the value in use.
  const LedgerEntry* eff = entry(ledger, "compute.efficiency");
  ASSERT_NE(eff, nullptr);
  EXPECT_DOUBLE_EQ(eff->value, 0.45);
  EXPECT_DOUBLE_EQ(eff->low, 0.30);
  EXPECT_DOUBLE_EQ(eff->high, 0.60);
  const LedgerEntry* nic = entry(ledger, "cluster.nic.bandwidth");
  ASSERT_NE(nic, nullptr);
  EXPECT_DOUBLE_EQ(nic->value, 25e9);
  EXPECT_NEAR(nic->low, 25e9 * 0.62 / 0.86, 1);
  EXPECT_NEAR(nic->high, 25e9 * 0.96 / 0.86, 1);
  const nlohmann::json j = ledger_to_json(ledger);
  ASSERT_EQ(j.size(), ledger.size());
  EXPECT_EQ(j[0]["source"], "default");
  for (const auto& item : j)
    for (const char* field : {"key", "value", "source", "low", "high", "why"})
      EXPECT_TRUE(item.contains(field)) << field;
}

TEST(Ledger, StatedKeysAreScenarioAndAssumedUnknownKeyIsRefused) {
  const Scenario s = load_scenario(kDefault, {"assumed=[]", "compute.memory_efficiency=0.8"});
  const std::vector<LedgerEntry> ledger = build_ledger(s);
  EXPECT_EQ(entry(ledger, "compute.efficiency")->source, InputSource::kScenario);
  EXPECT_EQ(entry(ledger, "compute.memory_efficiency")->source, InputSource::kScenario);
  EXPECT_EQ(entry(ledger, "compute.overlap_slowdown")->source, InputSource::kDefault);
  EXPECT_THROW(load_scenario(kDefault, {"assumed=[cluster.nodes]"}), InputError);
}

TEST(RankCorrelation, MonotoneIsOneReversedIsMinusOneConstantIsZero) {
  const std::vector<double> x{0.1, 0.7, 0.3, 0.9, 0.5};
  // Any increasing function of x has the same ranks: Spearman's rho is exactly 1.
  std::vector<double> up, down;
  for (double v : x) up.push_back(std::exp(3 * v));
  for (double v : x) down.push_back(-v * v);
  EXPECT_DOUBLE_EQ(rank_correlation(x, up), 1.0);
  EXPECT_DOUBLE_EQ(rank_correlation(x, down), -1.0);
  EXPECT_DOUBLE_EQ(rank_correlation(x, std::vector<double>(x.size(), 2.0)), 0.0);
  // Ranks 0..4 against 1,0,3,2,4: sum of squared rank differences 4, rho = 1 - 6*4/(5*24) = 0.8.
  EXPECT_NEAR(rank_correlation({0, 1, 2, 3, 4}, {1, 0, 3, 2, 4}), 0.8, 1e-12);
}

// The summary's `compute` line names the efficiencies' source as the ledger (result.assumptions)
// does: default.yaml lists compute.efficiency under `assumed:`, so both are defaults there;
// without `assumed:` its compute.efficiency is stated and memory_efficiency still a default.
TEST(Ledger, TheSummarysComputeLineSaysWhatTheLedgerSays) {
  auto run = [](const std::string& dir, const std::string& sets) {
    const std::string out = (scratch.root() / dir).string();
    const std::string cmd = "'" + std::string(DDPSIM_BINARY) + "' simulate '" + kDefault +
                            "' --set cluster.nodes=1 --no-baseline " + sets + " -o '" + out + "'";
    const ddpsim::testing::ShellRun r = ddpsim::testing::run_shell(cmd);
    EXPECT_EQ(r.code, 0) << cmd << "\n" << r.output;
    const size_t at = r.output.find("compute     ");
    EXPECT_NE(at, std::string::npos) << r.output;
    const std::string line = r.output.substr(at, r.output.find('\n', at) - at);
    const nlohmann::json results =
        nlohmann::json::parse(ddpsim::testing::read_text(scratch.root() / dir / "results.json"));
    std::map<std::string, std::string> source;
    for (const nlohmann::json& e : results["result"]["assumptions"])
      source[e["key"].get<std::string>()] = e["source"].get<std::string>();
    return std::make_pair(line, source);
  };
  struct Case {
    const char* dir;
    const char* sets;
    const char *efficiency, *memory_efficiency;  // the ledger's sources
    const char* line;
  };
  const char* kLine = "compute     roofline at 45 % of peak FLOP/s, 80 % of HBM bandwidth ";
  for (const Case& c : {
           Case{"line-assumed", "", "default", "default", "(defaults, not measured)"},
           Case{"line-stated", "--set 'assumed=[]'", "scenario", "default",
                "(compute.efficiency stated in the scenario, compute.memory_efficiency a "
                "default)"},
           Case{"line-both", "--set 'assumed=[]' --set compute.memory_efficiency=0.8", "scenario",
                "scenario", "(stated in the scenario)"},
       }) {
    const auto [line, ledger] = run(c.dir, c.sets);
    EXPECT_EQ(ledger.at("compute.efficiency"), c.efficiency) << c.dir;
    EXPECT_EQ(ledger.at("compute.memory_efficiency"), c.memory_efficiency) << c.dir;
    EXPECT_EQ(line, kLine + std::string(c.line));
  }
}

TEST(LatinHypercube, EveryStratumHoldsOnePointPerColumn) {
  const auto design = latin_hypercube(16, 5, 7);
  for (int j = 0; j < 5; ++j) {
    std::set<int> strata;
    for (int i = 0; i < 16; ++i) {
      ASSERT_GE(design[i][j], 0.0);
      ASSERT_LT(design[i][j], 1.0);
      strata.insert(static_cast<int>(design[i][j] * 16));
    }
    EXPECT_EQ(strata.size(), 16u) << "column " << j;
  }
  EXPECT_EQ(latin_hypercube(16, 5, 7), design);
  EXPECT_NE(latin_hypercube(16, 5, 8), design);
}

// One node of the default scenario: fast, and still NVLink, compute and overlap uncertain.
Scenario one_node(std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), "cluster.nodes=1");
  return load_scenario(kDefault, extra);
}

TEST(Uncertainty, FullyStatedScenarioHasZeroWidthBand) {
  const Scenario s =
      one_node({"assumed=[]", "compute.memory_efficiency=0.8", "compute.overlap_slowdown=1.1",
                "stragglers.kind=none", "compute.framework_overhead=1", "sync.nccl_latency=1"});
  const std::vector<LedgerEntry> ledger = build_ledger(s);
  ASSERT_EQ(defaulted_inputs(ledger), 0);
  // NCCL's latency table prices this job's ring: its row is there, stated.
  const LedgerEntry* nccl = entry(ledger, "sync.nccl_latency");
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ(nccl->source, InputSource::kScenario);
  // Unstated, the same scenario samples it: the one input left is the NCCL table's.
  const Scenario unstated =
      one_node({"assumed=[]", "compute.memory_efficiency=0.8", "compute.overlap_slowdown=1.1",
                "stragglers.kind=none", "compute.framework_overhead=1"});
  const std::vector<LedgerEntry> one_left = build_ledger(unstated);
  ASSERT_EQ(defaulted_inputs(one_left), 1);
  EXPECT_EQ(entry(one_left, "sync.nccl_latency")->source, InputSource::kDefault);
  UncertaintyOptions o;
  o.samples = 4;
  const UncertaintyReport r = assess_uncertainty(s, ledger, o);
  const double nominal = simulate(s, {TraceGpus::none(), false}).samples_per_second;
  EXPECT_EQ(r.samples_per_second.p10, nominal);
  EXPECT_EQ(r.samples_per_second.p90, nominal);
  EXPECT_EQ(r.iteration_time.p10, r.iteration_time.p90);
  EXPECT_TRUE(r.influences.empty());
}

// Draws run without link metering (draw_runner.cpp): an observer of the flows, so every figure a
// band is made of is the same to the bit, on a multi-node all-reduce and a parameter server.
TEST(Uncertainty, DrawsWithoutLinkMeteringGiveTheSameFigures) {
  for (const std::vector<std::string>& set :
       {std::vector<std::string>{"cluster.nodes=4"},
        std::vector<std::string>{"cluster.nodes=2", "sync.strategy=ps", "sync.ps.servers=2"}}) {
    const Scenario s = load_scenario(kDefault, set);
    SimOptions metered{TraceGpus::none(), false};
    SimOptions bare = metered;
    bare.measure_links = false;
    const SimulationResult a = simulate(s, metered), b = simulate(s, bare);
    EXPECT_EQ(a.samples_per_second, b.samples_per_second) << set.back();
    EXPECT_EQ(a.iteration_time, b.iteration_time) << set.back();
    EXPECT_EQ(a.exposed_comm_share, b.exposed_comm_share) << set.back();
    EXPECT_EQ(a.comm_time, b.comm_time) << set.back();
    EXPECT_EQ(a.breakdown.total(), b.breakdown.total()) << set.back();
    EXPECT_FALSE(a.links.classes.empty());
    EXPECT_TRUE(b.links.classes.empty());
  }
}

TEST(Uncertainty, InfluencesAreOrderedAndBracketTheNominal) {
  const Scenario s = one_node();
  const std::vector<LedgerEntry> ledger = build_ledger(s);
  UncertaintyOptions o;
  o.samples = 6;
  o.jobs = 2;
  const UncertaintyReport r = assess_uncertainty(s, ledger, o);
  const double nominal = simulate(s, {TraceGpus::none(), false}).samples_per_second;
  ASSERT_EQ(r.influences.size(), static_cast<size_t>(defaulted_inputs(ledger)));
  for (size_t k = 1; k < r.influences.size(); ++k)
    EXPECT_GE(std::abs(r.influences[k - 1].rate_high - r.influences[k - 1].rate_low),
              std::abs(r.influences[k].rate_high - r.influences[k].rate_low));
  for (const Influence& i : r.influences) {
    const std::string key = i.row->key;
    // Faster links and compute never slow a step; a larger slowdown never speeds it.
    const double lo = std::min(i.rate_low, i.rate_high), hi = std::max(i.rate_low, i.rate_high);
    EXPECT_LE(lo, nominal * (1 + 1e-9)) << key;
    EXPECT_GE(hi, nominal * (1 - 1e-9)) << key;
    if (key == "compute.overlap_slowdown" || key == "compute.slowest_gpu" ||
        key == "compute.framework_overhead" || key == "sync.nccl_latency")
      EXPECT_LE(i.rate_high, i.rate_low) << key;
    else
      EXPECT_GE(i.rate_high, i.rate_low) << key;
  }
  // Compute dominates a one-node ResNet-50 step (0.9 % exposed communication): a roofline
  // efficiency moves it more than the NVLink bandwidth does.
  const std::string top = r.influences.front().row->key;
  EXPECT_TRUE(top == "compute.efficiency" || top == "compute.memory_efficiency") << top;
  EXPECT_NE(std::string(r.influences.back().row->key), top);
  EXPECT_LT(r.samples_per_second.p10, r.samples_per_second.p90);
  EXPECT_LE(r.samples_per_second.p10, r.samples_per_second.p50);
}

TEST(Uncertainty, StrategiesOfAComparisonSeeTheSameDraws) {
  const Scenario ring = one_node({"cluster.nodes=2", "sync.algorithm=ring"});
  const Scenario ps = one_node({"cluster.nodes=2", "sync.strategy=ps", "sync.ps.servers=2"});
  const auto design = uncertainty_design(8, 5);
  const auto ring_ledger = build_ledger(ring), ps_ledger = build_ledger(ps);
  for (const auto& u : design) {
    const Scenario a = drawn_scenario(ring, ring_ledger, u);
    const Scenario b = drawn_scenario(ps, ps_ledger, u);
    EXPECT_EQ(a.cluster.nic.bandwidth, b.cluster.nic.bandwidth);
    EXPECT_EQ(a.cluster.intra_node.bandwidth, b.cluster.intra_node.bandwidth);
    EXPECT_EQ(a.compute.efficiency, b.compute.efficiency);
    EXPECT_NE(a.compute.efficiency, ring.compute.efficiency);
  }
}

TEST(Uncertainty, SameSeedGivesByteIdenticalResults) {
  const std::string binary = DDPSIM_BINARY;
  auto run = [&](const std::string& dir, int seed) {
    const std::string out = (scratch.root() / dir).string();
    const std::string cmd = "'" + binary + "' simulate '" + kDefault +
                            "' --set cluster.nodes=1 --no-baseline --uncertainty 4 -j 2 --seed " +
                            std::to_string(seed) + " -o '" + out + "' > /dev/null";
    EXPECT_EQ(ddpsim::testing::run_shell(cmd).code, 0) << cmd;
    return ddpsim::testing::read_text(scratch.root() / dir / "results.json");
  };
  const std::string a = run("a", 3), b = run("b", 3), c = run("c", 4);
  EXPECT_TRUE(a == b);
  EXPECT_NE(a, c);
  const nlohmann::json j = nlohmann::json::parse(a);
  EXPECT_EQ(j["result"]["uncertainty"]["samples"], 4);
  EXPECT_EQ(j["result"]["uncertainty"]["seed"], 3);
  EXPECT_FALSE(j["result"]["uncertainty"]["influences"].empty());
}

}  // namespace
}  // namespace ddpsim
