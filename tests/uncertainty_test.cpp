// The assumption ledger and uncertainty bands (docs/assumptions.md): which inputs of a scenario
// are defaults and with what range, that stated inputs are never sampled (a fully stated scenario
// has a zero-width band), the space-filling design, common random numbers across strategies,
// tornado influences that bracket the nominal prediction, and byte-identical results.json for the
// same seed (through the binary).
#include "sim/uncertainty/uncertainty.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>

#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "sim/uncertainty/latin_hypercube.h"
#include "sim/ledger/ledger.h"
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

// compute.slowest_gpu's high end is the expected slowest of the job's N GPUs over one GPU,
// 1 + z(N) sigma, with sigma from Sinha et al.'s most variable cluster: a 22 % whisker span
// (4 IQR) over the median, 4 x 2 x 0.67449 sigma for a normal spread (docs/assumptions.md).
// z(N) here is a 30-digit quadrature's (mpmath), not ddpsim's.
TEST(Ledger, SlowestGpuRangeIsTheExpectedSlowestOfTheJobsGpus) {
  const double sigma = 0.22 / (8 * 0.6744897501960817);
  EXPECT_NEAR(kGpuSpeedSigmaHigh, sigma, 1e-15);
  EXPECT_NEAR(sigma, 0.0408, 1e-4);
  auto slowest = [](int nodes, int gpus_per_node) {
    const Scenario s =
        load_scenario(kDefault, {"cluster.nodes=" + std::to_string(nodes),
                                 "cluster.gpus_per_node=" + std::to_string(gpus_per_node),
                                 "cluster.nic.count=1"});
    const std::vector<LedgerEntry> ledger = build_ledger(s);
    const LedgerEntry* e = entry(ledger, "compute.slowest_gpu");
    return e == nullptr ? std::optional<LedgerEntry>() : std::optional<LedgerEntry>(*e);
  };
  struct Job {
    int nodes, gpus_per_node;
    double z;
  };
  double previous = 1;
  for (const Job& job : {Job{1, 2, 0.564189583547756}, Job{1, 8, 1.42360030604528},
                         Job{8, 8, 2.34373346507944}, Job{128, 8, 3.24823960137541}}) {
    const std::optional<LedgerEntry> e = slowest(job.nodes, job.gpus_per_node);
    ASSERT_TRUE(e.has_value()) << job.nodes * job.gpus_per_node;
    EXPECT_EQ(e->source, InputSource::kDefault);
    EXPECT_EQ(e->value, 1.0);
    EXPECT_EQ(e->low, 1.0);
    EXPECT_NEAR(e->high, 1 + job.z * sigma, 1e-12) << job.nodes * job.gpus_per_node;
    EXPECT_GT(e->high, previous) << job.nodes * job.gpus_per_node;
    previous = e->high;
  }
  // Monotonic in N over every power of two from 2 to 16,384 GPUs.
  previous = 1;
  for (int gpus = 2; gpus <= 16384; gpus *= 2) {
    const int per_node = std::min(gpus, 8);
    const double high = slowest(gpus / per_node, per_node)->high;
    EXPECT_GT(high, previous) << gpus;
    previous = high;
  }
  EXPECT_NEAR(previous, 1 + 3.97135057028064 * sigma, 1e-12);  // 16,384 GPUs: 1.162
  // One GPU waits for no peer: the row does not apply.
  EXPECT_FALSE(slowest(1, 1).has_value());
}

// The PCIe switch's high alternative depends on the scenario too (range_high): all GPUs of a
// socket behind one switch.
TEST(Ledger, PcieSwitchChoiceIsNoneOrOneSwitchPerSocket) {
  for (const char* sockets : {"1", "2"}) {
    const Scenario s =
        load_scenario(kDefault, {"cluster.nodes=1", "cluster.intra_node={kind: pcie}",
                                 std::string("cluster.host.sockets=") + sockets});
    const std::vector<LedgerEntry> ledger = build_ledger(s);
    const LedgerEntry* e = entry(ledger, "cluster.pcie_switch.gpus");
    ASSERT_NE(e, nullptr) << sockets;
    EXPECT_EQ(e->low, 0);
    EXPECT_EQ(e->high, 8 / std::stoi(sockets)) << sockets;
  }
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

// A row with a mode draws from a triangular distribution: its CDF at the fraction drawn for u is
// u again (closed form), the peak sits at the mode, and over a fine uniform grid of u the mean
// fraction is (1 + mode) / 3, so the overlap row's draws average the source's 1.189x. A row
// without one is uniform (the fraction is u).
TEST(Draws, ARowWithAModeIsTriangularWithThePublishedMean) {
  const AssumptionRow& overlap = *find_assumption_row("compute.overlap_slowdown");
  ASSERT_GE(overlap.mode, 0.0);
  const double m = overlap.mode;
  const auto cdf = [m](double f) { return f < m ? f * f / m : 1 - (1 - f) * (1 - f) / (1 - m); };
  for (double u : {0.0, 0.05, 0.2, m, 0.6, 0.95, 0.999}) {
    const double f = drawn_fraction(overlap, u);
    EXPECT_NEAR(cdf(f), u, 1e-12) << "u " << u;
    EXPECT_GE(f, 0.0);
    EXPECT_LE(f, 1.0);
  }
  EXPECT_NEAR(drawn_fraction(overlap, m), m, 1e-12);  // the CDF at the mode is the mode
  const int n = 100000;
  double mean = 0;
  for (int i = 0; i < n; ++i) mean += drawn_fraction(overlap, (i + 0.5) / n) / n;
  EXPECT_NEAR(mean, (1 + m) / 3, 1e-6);
  EXPECT_NEAR(overlap.low + mean * (overlap.high - overlap.low), 1.189, 1e-6);

  const AssumptionRow& nvlink = *find_assumption_row("cluster.intra_node.bandwidth");
  ASSERT_LT(nvlink.mode, 0.0);
  EXPECT_EQ(drawn_fraction(nvlink, 0.3), 0.3);
}

// One node of the default scenario: fast, and still NVLink, compute and overlap uncertain.
Scenario one_node(std::vector<std::string> extra = {}) {
  extra.insert(extra.begin(), "cluster.nodes=1");
  return load_scenario(kDefault, extra);
}

// Also with the hidden choices stated (docs/assumptions.md): a transformer's attention, the
// gradient dtype under mixed precision, real data's decode rate per core.
TEST(Uncertainty, FullyStatedScenarioIsBandedByTheModelErrorAlone) {
  const std::vector<std::string> stated = {
      "assumed=[]",           "compute.memory_efficiency=0.8", "compute.overlap_slowdown=1.1",
      "stragglers.kind=none", "compute.framework_overhead=1",  "sync.nccl_latency=1"};
  std::vector<std::string> choices = stated;
  for (const char* set :
       {"model={name: gpt2, attention: eager}", "training.batch_per_gpu=4",
        "sync.gradient_dtype=bf16", "cluster.host.bandwidth=100GB/s",
        "data={sample_bytes: 110KB, decoded_bytes: 150528B, storage: {kind: local, bandwidth: "
        "8GB/s}, decode: {kind: cpu, workers_per_gpu: 4, samples_per_core: 275}}"})
    choices.push_back(set);
  for (const std::vector<std::string>& sets : {stated, choices}) {
    const Scenario s = one_node(sets);
    const std::vector<LedgerEntry> ledger = build_ledger(s);
    ASSERT_EQ(defaulted_inputs(ledger), 0) << ledger_to_json(ledger).dump(1);
    UncertaintyOptions o;
    o.samples = 4;
    const UncertaintyReport r = assess_uncertainty(s, ledger, o);
    const double nominal = simulate(s, {TraceGpus::none(), false}).samples_per_second;
    EXPECT_EQ(r.samples_per_second.p10, nominal);
    EXPECT_EQ(r.samples_per_second.p90, nominal);
    EXPECT_EQ(r.iteration_time.p10, r.iteration_time.p90);
    EXPECT_TRUE(r.influences.empty());
    // With the model's measured error (docs/model-error.md) the same scenario is still banded:
    // nothing is drawn, yet the model can be wrong.
    Discrepancy error;
    error.offsets = {-0.05, -0.01, 0.0, 0.02, 0.06};
    o.model_error = error;
    const UncertaintyReport banded = assess_uncertainty(s, ledger, o);
    EXPECT_LT(banded.samples_per_second.p10, nominal);
    EXPECT_GT(banded.samples_per_second.p90, nominal);
    EXPECT_EQ(banded.samples_per_second.p50, nominal);  // the middle offset is 0
    EXPECT_LT(banded.iteration_time.p10, banded.iteration_time.p90);
  }
  // The three rows are in that ledger, each stated.
  const std::vector<LedgerEntry> ledger = build_ledger(one_node(choices));
  for (const char* key :
       {"model.attention", "sync.gradient_dtype", "data.decode.samples_per_core"}) {
    const LedgerEntry* e = entry(ledger, key);
    ASSERT_NE(e, nullptr) << key;
    EXPECT_EQ(e->source, InputSource::kScenario) << key;
  }
  // NCCL's latency table prices this job's ring: its row is there, stated; unstated, the same
  // scenario samples it, the one input left.
  const std::vector<LedgerEntry> stated_ledger = build_ledger(one_node(stated));
  const LedgerEntry* nccl = entry(stated_ledger, "sync.nccl_latency");
  ASSERT_NE(nccl, nullptr);
  EXPECT_EQ(nccl->source, InputSource::kScenario);
  const std::vector<LedgerEntry> one_left = build_ledger(
      one_node({"assumed=[]", "compute.memory_efficiency=0.8", "compute.overlap_slowdown=1.1",
                "stragglers.kind=none", "compute.framework_overhead=1"}));
  ASSERT_EQ(defaulted_inputs(one_left), 1);
  EXPECT_EQ(entry(one_left, "sync.nccl_latency")->source, InputSource::kDefault);
}

// Draws run without link metering (draw_runner.cpp): an observer of the flows, so every figure a
// band is made of is the same (to the bit for the headline figures), on a multi-node all-reduce
// and a parameter server.
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
    // Without links or a trace a regular cluster now folds (scope auto, docs/scale.md): the
    // per-GPU means come from the slice's GPUs, summed in another order, so they agree to the
    // last bits rather than bit for bit; the headline figures above are the same to the bit.
    EXPECT_NEAR(a.comm_time, b.comm_time, 1e-12 * a.comm_time) << set.back();
    EXPECT_NEAR(a.breakdown.total(), b.breakdown.total(), 1e-12 * a.breakdown.total())
        << set.back();
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

// The band that the slowest GPU alone makes (every other input stated): against the range every
// job had before, 1-1.08, an 8-GPU compute-bound job's band narrows (its range is 1-1.058) about
// in proportion, and a 1,024-GPU job's widens (1-1.132). The same design for both ledgers.
TEST(Uncertainty, SlowestGpuBandNarrowsForEightGpusAndWidensForAThousand) {
  UncertaintyOptions o;
  o.samples = 5;
  o.jobs = 2;
  o.influences = false;
  auto widths = [&](int nodes) {
    const Scenario s =
        load_scenario(kDefault, {"cluster.nodes=" + std::to_string(nodes), "assumed=[]",
                                 "compute.memory_efficiency=0.8", "compute.overlap_slowdown=1.1",
                                 "compute.framework_overhead=1", "sync.nccl_latency=1"});
    const std::vector<LedgerEntry> ledger = build_ledger(s);
    EXPECT_EQ(defaulted_inputs(ledger), 1);
    std::vector<LedgerEntry> before = ledger;
    for (LedgerEntry& e : before)
      if (std::string(e.row->key) == "compute.slowest_gpu") e.high = 1.08;
    auto width = [](const UncertaintyReport& r) {
      return (r.iteration_time.p90 - r.iteration_time.p10) / r.iteration_time.p50;
    };
    return std::make_pair(width(assess_uncertainty(s, ledger, o)),
                          width(assess_uncertainty(s, before, o)));
  };
  const auto [eight, eight_before] = widths(1);
  EXPECT_LT(eight, eight_before);
  // Compute-bound (0.9 % exposed communication): the step time scales with the factor, so the
  // widths are near the ranges' ratio, 1.4236 x 4.077 % / 8 % = 0.7255.
  EXPECT_NEAR(eight / eight_before, 1.4236003 * 0.22 / (8 * 0.6744897501960817) / 0.08, 0.03);
  const auto [thousand, thousand_before] = widths(128);
  EXPECT_GT(thousand, thousand_before);
  std::printf(
      "[ band ] iteration time p10-p90 over p50: 8 GPUs %.2f %% (1-1.08: %.2f %%), "
      "1,024 GPUs %.2f %% (1-1.08: %.2f %%)\n",
      100 * eight, 100 * eight_before, 100 * thousand, 100 * thousand_before);
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
