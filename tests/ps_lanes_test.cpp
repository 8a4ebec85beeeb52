// Node lanes (sim/engine/ps_engine.h, docs/scale.md "Node lanes"): a run that reports headline
// figures only under simulation.scope auto (every uncertainty and validation draw) sends a node's
// GPUs' parameter-server slices as one flow. It must give the full per-GPU run's headline figures
// within 1 % (tests/scope_agreement.h's bound) on the public parameter-server cases with more
// than one GPU per node: colocated, dedicated and BytePS servers, PCIe-only K80 boxes, TCP,
// overlapped or not, pulls eager or at the next forward; it moves the same bytes per link class;
// and it stays off where a GPU paces itself (asynchronous servers), a node's GPUs leave through
// different NICs, or the run reports its links.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "tests/scope_agreement.h"

namespace ddpsim {
namespace {

const std::string kValidation = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/validation/";
const char kLanes[] = "node lanes:";

struct Pair {
  SimulationResult lanes, full;
};

Pair run_both(Scenario s) {
  Pair p;
  s.simulation.scope = SimulationScope::kAuto;
  p.lanes = simulate(s, headline_only());
  s.simulation.scope = SimulationScope::kFull;
  p.full = simulate(s, headline_only());
  return p;
}

void expect_lanes_agree(const std::string& file, const std::vector<std::string>& sets = {}) {
  SCOPED_TRACE(file);
  const Pair p = run_both(load_scenario(kValidation + file, sets));
  const SimulationResult &a = p.lanes, &b = p.full;
  EXPECT_NE(a.notes.find(kLanes), std::string::npos) << a.notes;
  EXPECT_EQ(b.notes.find(kLanes), std::string::npos) << b.notes;
  ASSERT_GT(b.iteration_time, 0);
  std::printf(
      "%s: iteration %+.3e (%.6g s), comm %+.3e, exposed %+.3e\n", file.c_str(),
      a.iteration_time / b.iteration_time - 1, b.iteration_time, a.comm_time / b.comm_time - 1,
      b.breakdown.exposed_comm > 0 ? a.breakdown.exposed_comm / b.breakdown.exposed_comm - 1 : 0.0);
  EXPECT_LE(rel(a.iteration_time, b.iteration_time), kAgreement)
      << a.iteration_time << " vs " << b.iteration_time;
  EXPECT_LE(rel(a.samples_per_second, b.samples_per_second), kAgreement);
  EXPECT_LE(rel(a.comm_time, b.comm_time), kAgreement) << a.comm_time << " vs " << b.comm_time;
  EXPECT_LE(rel(a.breakdown.exposed_comm, b.breakdown.exposed_comm), kAgreement)
      << a.breakdown.exposed_comm << " vs " << b.breakdown.exposed_comm;
  EXPECT_EQ(a.bottleneck, b.bottleneck);
  // The lane's flow is counted as its GPUs' slices over their own routes.
  for (size_t c = 0; c < kLinkClassNames.size(); ++c)
    EXPECT_LE(rel(a.bytes_per_link_class[c], b.bytes_per_link_class[c]), 1e-9)
        << kLinkClassNames[c];
  EXPECT_LE(rel(a.bytes_sent, b.bytes_sent), 1e-9);
}

TEST(PsLanes, ColocatedServersOverTcpOnEightK80sPerNode) {
  expect_lanes_agree("bugliarello-2017/bug-p28-inceptionv3-16.yaml");
  expect_lanes_agree("bugliarello-2017/bug-p28-inceptionv3-32.yaml");
}

TEST(PsLanes, TensorFlowBenchmarksOnAwsAndGoogleK80s) {
  expect_lanes_agree("tf-benchmarks-2017/tfb-awsk80-resnet50-32.yaml");
  expect_lanes_agree("tf-benchmarks-2017/tfb-awsk80-inceptionv3-16.yaml");
}

TEST(PsLanes, DedicatedAndBytepsServers) {
  const std::string file = "bugliarello-2017/bug-p28-inceptionv3-16.yaml";
  expect_lanes_agree(file, {"sync.ps.placement=dedicated", "sync.ps.servers=2"});
  expect_lanes_agree(file, {"sync.ps.placement=byteps", "sync.ps.servers=1", "sync.overlap=true"});
}

TEST(PsLanes, OverlappedPushesAndPriorityOrder) {
  // The cases push after backward; overlapped pushes under priority order interleave units of
  // two nodes' lanes on one server.
  expect_lanes_agree("bugliarello-2017/bug-p28-inceptionv3-16.yaml",
                     {"sync.overlap=true", "sync.schedule=priority"});
}

TEST(PsLanes, StragglersWaitInTheNodesReduceEitherWay) {
  // A node's pushes start when its slowest GPU's backward is reduced, lanes or not.
  expect_lanes_agree("bugliarello-2017/bug-p28-inceptionv3-16.yaml",
                     {"stragglers.kind=uniform", "stragglers.max=1.3", "sync.overlap=true"});
}

TEST(PsLanes, OffWhereAGpuPacesItselfOrTheRunReportsLinks) {
  const Scenario s = load_scenario(kValidation + "bugliarello-2017/bug-p28-inceptionv3-8.yaml",
                                   {"cluster.nodes=2"});
  // Asynchronous servers pace each GPU on its own; with several NICs a node's GPUs leave
  // through different ones.
  for (const char* set : {"sync.ps.mode=async", "cluster.nic.count=2"}) {
    Scenario t = load_scenario(kValidation + "bugliarello-2017/bug-p28-inceptionv3-8.yaml",
                               {"cluster.nodes=2", set});
    const SimulationResult r = simulate(t, headline_only());
    EXPECT_EQ(r.notes.find(kLanes), std::string::npos) << set << ": " << r.notes;
  }
  SimOptions with_links;
  with_links.baseline = false;
  const SimulationResult r = simulate(s, with_links);
  EXPECT_EQ(r.notes.find(kLanes), std::string::npos) << r.notes;
  EXPECT_NE(simulate(s, headline_only()).notes.find(kLanes), std::string::npos);
}

}  // namespace
}  // namespace ddpsim
