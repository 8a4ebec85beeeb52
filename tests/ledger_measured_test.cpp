// What makes a ledger row `measured` (docs/assumptions.md): the typed platform fit the loader
// applied, never the notes it printed. Over `transport: tcp` the fit holds the TCP efficiency
// and fits nic.bandwidth (docs/transports.md), so the efficiency row, which scales the fitted
// product, reads measured as the NIC bandwidth row does over RDMA; before, it stayed a default
// sampled over 0.35-1.3x and its text claimed the fit fitted the efficiency.
#include <gtest/gtest.h>

#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "sim/input/scenario_loader.h"
#include "sim/ledger/assumptions.h"
#include "sim/ledger/ledger.h"
#include "sim/measurements/platform_file.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

namespace fs = std::filesystem;
const testing::ScratchFolder kScratch("ddpsim-ledger-measured-test");

const LedgerEntry* entry(const std::vector<LedgerEntry>& ledger, const std::string& key) {
  for (const LedgerEntry& e : ledger)
    if (key == e.row->key) return &e;
  return nullptr;
}

// 2 nodes of 8 A100s over `transport`, their network fitted by p.yaml (nic.bandwidth only).
Scenario fitted_network(const std::string& transport) {
  const fs::path dir = kScratch.fresh(transport);
  std::ofstream(dir / "p.yaml") << "format: 1\nparameters:\n"
                                   "  - {parameter: cluster.nic.bandwidth, value: 3.1GB/s,\n"
                                   "     device: \"NVIDIA A100-SXM4-80GB\"}\n";
  return parse_scenario_text(
      "cluster:\n  nodes: 2\n  gpus_per_node: 8\n  gpu: a100-sxm-80gb\n"
      "  intra_node: {kind: nvswitch, bandwidth: 230GB/s}\n  pcie: 24GB/s\n"
      "  nic: {count: 1, bandwidth: 100Gbps, latency: 5us, transport: " +
          transport + "}\n  calibration: p.yaml\nmodel: {name: resnet50}\n",
      (dir / "s.yaml").string());
}

TEST(LedgerMeasured, ATcpFitOfTheNicBandwidthMeasuresTheTcpEfficiency) {
  const Scenario s = fitted_network("tcp");
  const std::vector<LedgerEntry> ledger = build_ledger(s);
  EXPECT_EQ(entry(ledger, "cluster.nic.bandwidth"), nullptr);  // an RDMA row
  const LedgerEntry* e = entry(ledger, "cluster.nic.efficiency");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->source, InputSource::kMeasured);
  EXPECT_EQ(e->low, e->value);
  EXPECT_EQ(e->high, e->value);  // never sampled
  EXPECT_EQ(e->value, s.cluster.nic.efficiency);
  EXPECT_EQ(e->file, s.cluster.calibration);
  EXPECT_EQ(e->device, "NVIDIA A100-SXM4-80GB");
  EXPECT_EQ(e->why, "fitted by `ddpsim calibrate --fit-platform` (through cluster.nic.bandwidth)");
  // The row's text says what the fit does: it fits nic.bandwidth, never the efficiency.
  const std::string measure = find_assumption_row("cluster.nic.efficiency")->measure;
  EXPECT_EQ(measure.find("fits nic.efficiency"), std::string::npos);
  EXPECT_NE(measure.find("fits nic.bandwidth with this efficiency held"), std::string::npos);
}

TEST(LedgerMeasured, OverRdmaTheSameFitMeasuresTheNicBandwidth) {
  const std::vector<LedgerEntry> ledger = build_ledger(fitted_network("rdma"));
  EXPECT_EQ(entry(ledger, "cluster.nic.efficiency"), nullptr);  // a TCP row
  const LedgerEntry* e = entry(ledger, "cluster.nic.bandwidth");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->source, InputSource::kMeasured);
  EXPECT_EQ(e->why, "fitted by `ddpsim calibrate --fit-platform`");
}

// The typed fit decides; the printed notes are prose and decide nothing.
TEST(LedgerMeasured, TheTypedFitDecidesNotTheNotes) {
  Scenario s = fitted_network("rdma");
  ASSERT_FALSE(s.cluster.calibration_notes.empty());
  Scenario without_notes = s;
  without_notes.cluster.calibration_notes.clear();
  EXPECT_EQ(entry(build_ledger(without_notes), "cluster.nic.bandwidth")->source,
            InputSource::kMeasured);
  Scenario without_fit = s;  // notes kept, the typed fit holds another parameter
  auto other = std::make_shared<PlatformCalibration>(*s.cluster.fitted_platform);
  other->parameters.front().parameter = "cluster.intra_node.latency";
  without_fit.cluster.fitted_platform = other;
  // Not measured: the scenario's own stated value.
  EXPECT_EQ(entry(build_ledger(without_fit), "cluster.nic.bandwidth")->source,
            InputSource::kScenario);
}

}  // namespace
}  // namespace ddpsim
