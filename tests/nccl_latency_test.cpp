// sync.nccl_latency (docs/assumptions.md): a multiplier on NCCL's tuning-table latencies. The pure
// cost model scales the table's terms and never the cluster's own hop latencies; an 8-byte
// all-reduce, whose time is that latency alone, moves in proportion through the whole simulation;
// the ledger lists the row exactly where NCCL's latency model prices the job's collectives; a
// bad value is exit 2 naming the allowed range.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "sim/cost/nccl_tuning.h"
#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "sim/ledger/ledger.h"
#include "sim/text/input_error.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

ddpsim::testing::ScratchFolder scratch("ddpsim-nccl-latency");

NcclSetting setting(int nodes, int per_node, NcclHardware intra, double scale) {
  NcclSetting s;
  s.ranks = nodes * per_node;
  s.nodes = nodes;
  s.intra = intra;
  s.compute_capability = 80;
  s.ll128 = true;
  s.channels = 4;
  s.latency_scale = scale;
  return s;
}

// With no link latency of the cluster's own, every term is the table's: k times the latency.
TEST(NcclLatencyScale, MultipliesEveryTableLatency) {
  const std::vector<NcclSetting> shapes = {
      setting(1, 8, NcclHardware::kNvLink, 1), setting(8, 8, NcclHardware::kNvLink, 1),
      setting(2, 4, NcclHardware::kPci, 1), setting(64, 1, NcclHardware::kNvLink, 1)};
  for (const NcclSetting& one : shapes) {
    for (NcclAlgorithm a : {NcclAlgorithm::kRing, NcclAlgorithm::kTree, NcclAlgorithm::kNvls,
                            NcclAlgorithm::kNvlsTree}) {
      for (NcclProtocol p : {NcclProtocol::kLL, NcclProtocol::kLL128, NcclProtocol::kSimple}) {
        if (!nccl_algorithm_runs(a, p)) continue;
        for (double bytes : {8.0, 1e6, 1e9}) {  // 1 GB crosses the ring's plateau threshold
          NcclSetting scaled = one;
          scaled.latency_scale = 1.7;
          const double base = nccl_latency(one, a, p, bytes);
          ASSERT_GT(base, 0);
          EXPECT_NEAR(nccl_latency(scaled, a, p, bytes), 1.7 * base, 1e-12 * base)
              << one.nodes << "x" << one.ranks / one.nodes << " a" << static_cast<int>(a) << " p"
              << static_cast<int>(p) << " " << bytes;
          if (a == NcclAlgorithm::kRing) {  // reduce-scatter and all-gather: NCCL's ring only
            EXPECT_NEAR(nccl_latency(scaled, a, p, bytes, CollectiveOp::kReduceScatter),
                        1.7 * nccl_latency(one, a, p, bytes, CollectiveOp::kReduceScatter),
                        1e-12 * base);
          }
        }
      }
    }
  }
  // The 8-GPU NVLink ring with LL: 6.6 + 14 x 0.6 = 15.0 us in v2.20.3's table.
  EXPECT_NEAR(nccl_latency(setting(1, 8, NcclHardware::kNvLink, 1), NcclAlgorithm::kRing,
                           NcclProtocol::kLL, 8),
              15.0e-6, 1e-12);
  EXPECT_NEAR(nccl_latency(setting(1, 8, NcclHardware::kNvLink, 0.7), NcclAlgorithm::kRing,
                           NcclProtocol::kLL, 8),
              0.7 * 15.0e-6, 1e-12);
}

// The cluster's hop latencies are added unscaled: the latency is affine in k, its slope the
// table's latency alone (the ring on one node, the tree across two; a ring across nodes takes
// max(intra-node hop, proxy overhead) per step, which is affine only piecewise).
TEST(NcclLatencyScale, LeavesTheClustersHopLatenciesAlone) {
  struct Shape {
    NcclSetting s;
    NcclAlgorithm a;
  };
  for (Shape shape : {Shape{setting(1, 8, NcclHardware::kNvLink, 1), NcclAlgorithm::kRing},
                      Shape{setting(2, 8, NcclHardware::kNvLink, 1), NcclAlgorithm::kTree}}) {
    shape.s.intra_hop = 2e-6;
    shape.s.net_hop = 5e-6;
    NcclSetting table_only = shape.s;
    table_only.intra_hop = table_only.net_hop = 0;
    auto at = [&](double k) {
      NcclSetting x = shape.s;
      x.latency_scale = k;
      return nccl_latency(x, shape.a, NcclProtocol::kLL, 8);
    };
    const double slope = at(2) - at(1);
    EXPECT_NEAR(slope, nccl_latency(table_only, shape.a, NcclProtocol::kLL, 8), 1e-15);
    EXPECT_NEAR(at(3) - at(2), slope, 1e-15);
    EXPECT_GT(at(1), slope);  // the hops' part stays when the table's is scaled
  }
}

// Two nodes of four NVLink GPUs, no link latency of their own (the validation scenarios' rule,
// docs/model-assumptions.md), one 8-byte tensor: a 1 x 1 linear layer's weight and bias in fp32.
const char* kTinyAllReduce = R"(
cluster:
  nodes: 2
  gpus_per_node: 4
  gpu: v100-sxm2-32gb
  intra_node: {kind: nvlink-mesh, bandwidth: 115GB/s, latency: 0us}
  pcie: 12GB/s
  nic: {count: 1, bandwidth: 10GB/s, latency: 0us}
model: {name: mlp, layers: [1, 1]}
training: {batch_per_gpu: 1, precision: fp32, optimizer: sgd, iterations: 2, warmup: 1}
sync: {strategy: allreduce, algorithm: ring, bucket_cap: 16GiB, first_bucket: 1MiB, overlap: false}
compute: {mode: roofline, efficiency: 0.5}
)";

double allreduce_time(const Scenario& s) {
  const SimulationResult r = simulate(s, {TraceGpus::none(), false});
  double t = 0, bytes = 0;
  for (const BucketReport& b : r.buckets)
    if (b.bytes > bytes) {
      bytes = b.bytes;
      t = b.comm_time;
    }
  EXPECT_EQ(bytes, 8);
  return t;
}

TEST(NcclLatencyScale, MovesAnEightByteAllReduceInProportion) {
  const Scenario one = parse_scenario_text(kTinyAllReduce, "t.yaml");
  ASSERT_EQ(one.sync.nccl_latency, 1);
  // Closed form: NCCL's pick for 8 bytes on this cluster (the LL ring: V100, no GPUDirect
  // stated, so no LL128 across nodes) and its table latency; the 8 bytes' transfer is under a
  // nanosecond.
  const NcclSetting table = nccl_setting(one.cluster, 1);
  const NcclChoice pick =
      nccl_choose(table, {{NcclAlgorithm::kRing, 1e10}}, NcclProtocol::kAuto, 8);
  const double t1 = allreduce_time(one);
  EXPECT_NEAR(t1, pick.latency, 1e-3 * pick.latency);
  for (double k : {0.7, 2.5}) {
    const Scenario s =
        parse_scenario_text(kTinyAllReduce, "t.yaml", {"sync.nccl_latency=" + std::to_string(k)});
    EXPECT_NEAR(allreduce_time(s) / t1, k, 1e-3) << k;
  }
  // The alpha model has no NCCL table: the key changes nothing there.
  const Scenario alpha = parse_scenario_text(kTinyAllReduce, "t.yaml",
                                             {"sync.latency_model=alpha", "sync.nccl_latency=2"});
  const Scenario alpha1 =
      parse_scenario_text(kTinyAllReduce, "t.yaml", {"sync.latency_model=alpha"});
  EXPECT_EQ(allreduce_time(alpha), allreduce_time(alpha1));
}

const LedgerEntry* entry(const std::vector<LedgerEntry>& ledger, const std::string& key) {
  for (const LedgerEntry& e : ledger)
    if (key == e.row->key) return &e;
  return nullptr;
}

// The row is listed exactly where the table prices a collective, and a listed row moves the
// prediction (an unlisted one would be a silent assumption; a listed one that moved nothing a
// band that lies).
TEST(NcclLatencyRow, ListedWhereNcclsTablePricesTheCollectives) {
  struct Case {
    std::vector<std::string> set;
    bool listed;
  };
  const std::vector<Case> cases = {
      {{}, true},
      {{"sync.algorithm=tree"}, true},
      {{"sync.algorithm=auto"}, true},
      {{"sync.mode=chunked"}, false},
      {{"sync.algorithm=halving-doubling"}, false},
      {{"sync.latency_model=alpha"}, false},
      {{"sync.strategy=ps", "sync.ps.servers=1"}, false},
      {{"cluster.nodes=1", "cluster.gpus_per_node=1"}, false},
  };
  for (const Case& c : cases) {
    const Scenario s = parse_scenario_text(kTinyAllReduce, "t.yaml", c.set);
    const std::string what = c.set.empty() ? "ring" : c.set.front();
    const std::vector<LedgerEntry> ledger = build_ledger(s);
    const LedgerEntry* e = entry(ledger, "sync.nccl_latency");
    ASSERT_EQ(e != nullptr, c.listed) << what;
    std::vector<std::string> doubled = c.set;
    doubled.push_back("sync.nccl_latency=2");
    const Scenario d = parse_scenario_text(kTinyAllReduce, "t.yaml", doubled);
    const double base = simulate(s, {TraceGpus::none(), false}).iteration_time;
    const double moved = simulate(d, {TraceGpus::none(), false}).iteration_time;
    if (c.listed) {
      EXPECT_EQ(e->source, InputSource::kDefault) << what;
      EXPECT_EQ(e->value, 1);
      EXPECT_EQ(e->low, 0.7);
      EXPECT_EQ(e->high, 2.5);
      EXPECT_GT(moved, base) << what;
      // Stated, it is the user's and never sampled.
      const std::vector<LedgerEntry> stated_ledger = build_ledger(d);
      const LedgerEntry* stated = entry(stated_ledger, "sync.nccl_latency");
      ASSERT_NE(stated, nullptr);
      EXPECT_EQ(stated->source, InputSource::kScenario);
      EXPECT_EQ(stated->value, 2);
      EXPECT_EQ(stated->low, stated->high);
    } else {
      EXPECT_EQ(moved, base) << what;
    }
  }
}

// A platform fit solves the link latency above NCCL's table from a measured sweep (platform_fit.h):
// that measurement covers the table's error too, so the row reads as measured from the file,
// where the fit solved the latency this job's calls cross (the network's on several nodes, the
// intra-node one on one node), and stays a default where it did not.
TEST(NcclLatencyRow, APlatformFitOfTheLinkLatencyMeasuresIt) {
  const auto dir = scratch.root() / "fit";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "net.yaml") << "format: 1\nparameters:\n"
                                     "  - {parameter: cluster.nic.latency, value: 3.5us,\n"
                                     "     device: \"Tesla V100-SXM2-32GB\"}\n";
  std::ofstream(dir / "node.yaml") << "format: 1\nparameters:\n"
                                      "  - {parameter: cluster.intra_node.latency, value: 1us}\n";
  struct Case {
    const char* file;
    int nodes;
    InputSource source;
  };
  for (const Case& c :
       {Case{"net.yaml", 2, InputSource::kMeasured}, Case{"node.yaml", 2, InputSource::kDefault},
        Case{"node.yaml", 1, InputSource::kMeasured}}) {
    const Scenario s = parse_scenario_text(kTinyAllReduce, (dir / "s.yaml").string(),
                                           {"cluster.calibration=" + (dir / c.file).string(),
                                            "cluster.nodes=" + std::to_string(c.nodes)});
    const std::vector<LedgerEntry> ledger = build_ledger(s);
    const LedgerEntry* e = entry(ledger, "sync.nccl_latency");
    ASSERT_NE(e, nullptr) << c.file << " " << c.nodes;
    EXPECT_EQ(e->source, c.source) << c.file << " " << c.nodes;
    if (c.source == InputSource::kMeasured) {
      EXPECT_EQ(e->file, (dir / c.file).string());
      EXPECT_EQ(e->low, e->high);
    }
  }
  const Scenario net = parse_scenario_text(kTinyAllReduce, (dir / "s.yaml").string(),
                                           {"cluster.calibration=" + (dir / "net.yaml").string()});
  const std::vector<LedgerEntry> ledger = build_ledger(net);
  EXPECT_EQ(entry(ledger, "sync.nccl_latency")->device, "Tesla V100-SXM2-32GB");
}

TEST(NcclLatencyRow, BadValueIsExitTwoWithTheAllowedRange) {
  for (const char* bad : {"0", "-1", "11", "fast"}) {
    try {
      parse_scenario_text(kTinyAllReduce, "t.yaml", {std::string("sync.nccl_latency=") + bad});
      ADD_FAILURE() << bad << " was accepted";
    } catch (const InputError& e) {
      EXPECT_NE(std::string(e.what()).find("sync.nccl_latency: expected a number > 0 and <= 10"),
                std::string::npos)
          << e.what();
    }
  }
  // Through the binary: exit 2 and the file:line of the value.
  std::string text = kTinyAllReduce;
  const std::string sync_line = "sync: {strategy: allreduce,";
  text.replace(text.find(sync_line), sync_line.size(), sync_line + " nccl_latency: 0,");
  const auto file = scratch.root() / "bad.yaml";
  std::ofstream(file) << text;
  int line = 1;
  for (size_t i = 0; i < text.find("nccl_latency"); ++i) line += text[i] == '\n';
  const ddpsim::testing::ShellRun r =
      ddpsim::testing::run_shell("'" + std::string(DDPSIM_BINARY) + "' simulate '" + file.string() +
                                 "' -o '" + (scratch.root() / "out").string() + "'");
  EXPECT_EQ(r.code, 2) << r.output;
  EXPECT_NE(r.output.find("bad.yaml:" + std::to_string(line) + ":"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("sync.nccl_latency: expected a number > 0 and <= 10, got 0"),
            std::string::npos)
      << r.output;
}

}  // namespace
}  // namespace ddpsim
