// `simulation.scope: auto` folds a run that reports its headline figures only (no links, no
// trace: every uncertainty draw) at any size where the cluster is regular (sim/cost/symmetry.h,
// issue 33), and such a draw must give the full run's numbers: the three strategies of the
// Llama-3-8B comparison on 16 x 8 H100 (one leaf), nominal and in drawn worlds, and DDP on the
// default scenario, each against the same run forced full (tests/scope_agreement.h: 1 %; measured:
// identical). A run that reports links and a trace keeps the full scope below
// kSymmetricFromGpus.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/cost/symmetry.h"
#include "sim/engine/simulation.h"
#include "sim/ledger/assumptions.h"
#include "sim/input/scenario_loader.h"
#include "sim/uncertainty/uncertainty.h"
#include "tests/scope_agreement.h"

namespace ddpsim {
namespace {

const std::string kLlama = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/llama3-8b-16x8-h100.yaml";

void expect_draw_folds_exactly(Scenario s, const std::string& what) {
  SCOPED_TRACE(what);
  s.simulation.scope = SimulationScope::kAuto;
  const SimulationResult folded = simulate(s, headline_only());
  EXPECT_NE(folded.notes.find("(auto: headline figures only"), std::string::npos) << folded.notes;
  s.simulation.scope = SimulationScope::kFull;
  const SimulationResult full = simulate(s, headline_only());
  expect_scopes_agree(folded, full);
  // The fold is exact here, not only within 1 %.
  EXPECT_EQ(folded.iteration_time, full.iteration_time);
}

TEST(AutoFold, TheLlamaComparisonsCellsFoldExactly) {
  for (const char* mode : {"zero3", "fsdp-hybrid", "zero1"})
    expect_draw_folds_exactly(
        load_scenario(kLlama, {std::string("sync.sharding=") + mode, "training.iterations=2"}),
        mode);
}

TEST(AutoFold, DrawnWorldsKeepTheClusterRegularAndFoldExactly) {
  const Scenario base = load_scenario(kLlama, {"training.iterations=2"});
  const std::vector<LedgerEntry> ledger = build_ledger(base);
  const std::vector<std::vector<double>> design = uncertainty_design(3, 1);
  for (size_t k = 0; k < design.size(); ++k)
    expect_draw_folds_exactly(drawn_scenario(base, ledger, design[k]),
                              "draw " + std::to_string(k));
}

TEST(AutoFold, DdpOnTheDefaultScenarioFoldsExactly) {
  expect_draw_folds_exactly(
      load_scenario(std::string(DDPSIM_SOURCE_DIR) + "/scenarios/default.yaml",
                    {"cluster.nodes=4", "training.iterations=2"}),
      "default.yaml, 4 nodes");
}

TEST(AutoFold, ARunWithLinksAndATraceStaysFullBelowTheThreshold) {
  Scenario s = load_scenario(kLlama, {"training.iterations=2"});
  ASSERT_LT(s.cluster.total_gpus(), kSymmetricFromGpus);
  SimOptions o;
  o.baseline = false;
  const SimulationResult r = simulate(s, o);
  EXPECT_EQ(r.notes.find("symmetric: "), std::string::npos) << r.notes;
  EXPECT_FALSE(r.links.busiest.empty());
}

TEST(AutoFold, IrregularDrawsRunFull) {
  // Stragglers fixed on single GPUs make the GPUs differ: no fold, at any size.
  Scenario s = load_scenario(kLlama, {"training.iterations=2"});
  s.stragglers.kind = StragglerKind::kFixed;
  s.stragglers.fixed = {{3, 1.2}};
  const SimulationResult r = simulate(s, headline_only());
  EXPECT_EQ(r.notes.find("symmetric: "), std::string::npos) << r.notes;
}

}  // namespace
}  // namespace ddpsim
