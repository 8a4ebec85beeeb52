// Extrapolation on public data (docs/calibration.md, "Predicting other node counts"): the links of
// a cluster are fitted through the simulator on its smallest multi-node log, and the simulated
// bus bandwidth at 8 GiB on the larger node counts is compared with what the same cluster
// measured. The logs and their sources: tests/data/nccl-tests/scaling/README.md.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/input/scenario_loader.h"
#include "sim/link_fit/collective_sweep_sim.h"
#include "sim/link_fit/platform_fit.h"
#include "sim/measurements/nccl_tests_import.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

const std::string kDir = std::string(DDPSIM_SOURCE_DIR) + "/tests/data/nccl-tests/scaling/";
constexpr double kLargest = 8589934592.0;  // 8 GiB

MeasuredSweep read_log(const std::string& name) {
  return measured_sweep(parse_nccl_tests_log(testing::read_text(kDir + name), name), name);
}

double measured_busbw(const MeasuredSweep& m) {
  const CollectiveSample& s = m.samples.back();
  return s.bytes / s.seconds / 1e9 * bus_bandwidth_factor(CollectiveOp::kAllReduce, m.gpus);
}

// The simulated bus bandwidth at `bytes` (8 GiB unless given) of the fitted cluster on `nodes`
// nodes.
double predicted_busbw(const Scenario& scenario, const PlatformFit& fit, int nodes,
                       double bytes = kLargest) {
  Scenario s = scenario;
  s.cluster = fit.cluster;
  s.cluster.nodes = nodes;
  const auto t = simulate_collective_sweep(s, CollectiveOp::kAllReduce, {bytes});
  return bytes / t[0].seconds / 1e9 *
         bus_bandwidth_factor(CollectiveOp::kAllReduce, s.cluster.total_gpus());
}

const FittedParameter& parameter(const PlatformFit& fit, const std::string& name) {
  for (const FittedParameter& p : fit.calibration.parameters)
    if (p.parameter == name) return p;
  throw std::runtime_error(name + " not fitted");
}

std::vector<std::vector<std::string>> csv_records(const std::string& name) {
  return testing::csv_records(kDir + name);
}

// Published busbw at one size per node count: the (nodes, busbw) columns of a two-column file.
std::vector<std::pair<int, double>> read_busbw_csv(const std::string& name) {
  std::vector<std::pair<int, double>> published;
  for (const auto& r : csv_records(name)) published.push_back({std::stoi(r[0]), std::stod(r[1])});
  return published;
}

TEST(Extrapolation, H100TunedRingOnTwoNodesPredictsEightNodes) {
  const Scenario scenario = load_scenario(kDir + "h100_ib400.yaml");
  const MeasuredSweep two = read_log("h100_ib400_2x8_ring_tuned.log");
  const MeasuredSweep eight = read_log("h100_ib400_8x8_tuned.log");
  ASSERT_EQ(two.nodes, 2);
  ASSERT_EQ(eight.nodes, 8);
  const PlatformFit fit = fit_platform(scenario.cluster, {two}, all_reduce_times(scenario));
  EXPECT_TRUE(parameter(fit, "cluster.nic.bandwidth").flag.empty());
  const double predicted = predicted_busbw(scenario, fit, 8);
  EXPECT_NEAR(measured_busbw(eight), 391.37, 0.01);
  EXPECT_LT(std::abs(predicted / measured_busbw(eight) - 1), 0.10) << predicted;
}

TEST(Extrapolation, H100DefaultsFromFourNodesPredictEightAndTwoNodeNvlsTreeIsRefusedOrFlagged) {
  const Scenario scenario = load_scenario(kDir + "h100_ib400.yaml");
  const MeasuredSweep two = read_log("h100_ib400_2x8_default.log");
  const MeasuredSweep four = read_log("h100_ib400_4x8_default.log");
  const MeasuredSweep eight = read_log("h100_ib400_8x8_default.log");
  // NCCL runs NVLSTree on 2 nodes. Under NCCL's latency model (the default) its 1 MiB time is
  // below what the model's algorithms charge even with no link latency: refused.
  try {
    fit_platform(scenario.cluster, {two}, all_reduce_times(scenario));
    FAIL() << "fitted the NVLSTree log";
  } catch (const InputError& e) {
    EXPECT_NE(e.message().find("cluster.nic.latency would have to be negative"), std::string::npos)
        << e.message();
  }
  // Under the plain alpha ring its 466.73 GB/s of bus bandwidth needs more than the 8 x 400 Gb/s
  // the NICs carry in a ring, so the fitted NIC is above its line rate and flagged, and the ring
  // model it feeds over-predicts every larger count (the table in docs/calibration.md).
  Scenario alpha = scenario;
  alpha.sync.latency_model = LatencyModel::kAlpha;
  const PlatformFit from_two = fit_platform(alpha.cluster, {two}, all_reduce_times(alpha));
  EXPECT_NE(
      parameter(from_two, "cluster.nic.bandwidth").flag.find("above the scenario's 50.0 GB/s"),
      std::string::npos);
  EXPECT_GT(predicted_busbw(alpha, from_two, 8) / measured_busbw(eight), 1.4);
  // From 4 nodes on NCCL uses its ring at 8 GiB: fitted there, 8 nodes is within 10 % under
  // either latency model.
  for (const Scenario& s : {scenario, alpha}) {
    const PlatformFit from_four = fit_platform(s.cluster, {four}, all_reduce_times(s));
    EXPECT_TRUE(parameter(from_four, "cluster.nic.bandwidth").flag.empty());
    EXPECT_LT(std::abs(predicted_busbw(s, from_four, 8) / measured_busbw(eight) - 1), 0.10);
  }
}

TEST(Extrapolation, H100DefaultsFittedAsNcclRanThemOnTwoNodesPredictFourAndEight) {
  // Under sync.algorithm auto the model makes NCCL's own choice, NVLSTree included on these
  // NVLink SHARP nodes: the 2-node log is fitted as the NVLSTree NCCL ran (NVLS inside each
  // node, a tree over every NIC), and the larger counts are predicted with what auto picks there.
  const Scenario scenario = load_scenario(kDir + "h100_ib400.yaml", {"sync.algorithm=auto"});
  const MeasuredSweep two = read_log("h100_ib400_2x8_default.log");
  const MeasuredSweep four = read_log("h100_ib400_4x8_default.log");
  const MeasuredSweep eight = read_log("h100_ib400_8x8_default.log");
  const PlatformFit fit = fit_platform(scenario.cluster, {two}, all_reduce_times(scenario));
  const FittedParameter& nic = parameter(fit, "cluster.nic.bandwidth");
  EXPECT_TRUE(nic.flag.empty()) << nic.flag;
  EXPECT_LT(nic.value, 50e9);  // below the 400 Gb/s line rate
  const double at_four = predicted_busbw(scenario, fit, 4);
  const double at_eight = predicted_busbw(scenario, fit, 8);
  EXPECT_LT(std::abs(at_four / measured_busbw(four) - 1), 0.10) << at_four;
  EXPECT_LT(std::abs(at_eight / measured_busbw(eight) - 1), 0.10) << at_eight;
  std::printf(
      "h100 defaults, auto: nic %.2f GB/s, %.2f us -> %.2f at 4 nodes (measured %.2f), "
      "%.2f at 8 (measured %.2f)\n",
      nic.value / 1e9, parameter(fit, "cluster.nic.latency").value * 1e6, at_four,
      measured_busbw(four), at_eight, measured_busbw(eight));
}

TEST(Extrapolation, A100RoceWhoseBandwidthFallsWithNodesIsNotALinkProperty) {
  // nccl-tests issue #169: 100 GB/s on 2 nodes, 70 on 3, 58 on 4 and 5, 40 on 6. A link model
  // on a non-blocking fabric keeps the 2-node bandwidth at every count: the fall is the fabric's
  // (or the 2-node tree's), which no link parameter fitted on 2 nodes can show. The prediction is
  // the fitted 2-node bandwidth within 1 %; the errors are in docs/calibration.md.
  const auto published = read_busbw_csv("a100_roce_issue169.csv");
  ASSERT_EQ(published.size(), 5u);
  const Scenario scenario = parse_scenario_text(
      "cluster:\n  nodes: 2\n  gpus_per_node: 8\n  gpu: a100-sxm-80gb\n"
      "  intra_node: {kind: nvswitch, bandwidth: 300GB/s, latency: 1us}\n  pcie: 32GB/s\n"
      "  nic: {count: 8, bandwidth: 100Gbps, latency: 3us}\n"
      "model: {name: resnet50}\n",
      "issue169.yaml");
  MeasuredSweep two;
  two.log = "issue169 (2 nodes)";
  two.gpus = 16;
  two.nodes = 2;
  for (double b = 1 << 30; b <= kLargest; b *= 2)  // -b 1G -e 8G -f 2 at the stated busbw
    two.samples.push_back(
        {b, b * bus_bandwidth_factor(CollectiveOp::kAllReduce, 16) / (published[0].second * 1e9),
         0});
  const PlatformFit fit = fit_platform(scenario.cluster, {two}, all_reduce_times(scenario));
  for (const auto& [nodes, busbw] : published) {
    const double predicted = predicted_busbw(scenario, fit, nodes);
    EXPECT_NEAR(predicted / published[0].second, 1, 0.01) << nodes << " nodes";
    if (nodes >= 3) {
      EXPECT_GT(predicted / busbw - 1, 0.4) << nodes << " nodes";
    }
  }
}

// One published size per node count cannot fit a latency (fit_platform needs two sizes): the NIC
// bandwidth alone is fitted through the simulator, by bisection, so that the simulated bus
// bandwidth at that size equals the published one (NCCL's latency model, NIC latency 0: at 1 GiB
// the latency term is below 0.1 % of the time).
double fit_nic_bandwidth(const Scenario& scenario, int nodes, double bytes, double busbw) {
  Scenario s = scenario;
  s.cluster.nodes = nodes;
  s.cluster.nic.latency = 0;
  double lo = 1e8, hi = 1e12;
  for (int i = 0; i < 60; ++i) {
    const double mid = std::sqrt(lo * hi);
    s.cluster.nic.bandwidth = mid;
    const auto t = simulate_collective_sweep(s, CollectiveOp::kAllReduce, {bytes});
    const double b = bytes / t[0].seconds / 1e9 *
                     bus_bandwidth_factor(CollectiveOp::kAllReduce, s.cluster.total_gpus());
    (b < busbw ? lo : hi) = mid;
  }
  return std::sqrt(lo * hi);
}

double busbw_with_nic(const Scenario& scenario, int nodes, double bytes, double nic_bandwidth) {
  Scenario s = scenario;
  s.cluster.nodes = nodes;
  s.cluster.nic.latency = 0;
  s.cluster.nic.bandwidth = nic_bandwidth;
  const auto t = simulate_collective_sweep(s, CollectiveOp::kAllReduce, {bytes});
  return bytes / t[0].seconds / 1e9 *
         bus_bandwidth_factor(CollectiveOp::kAllReduce, s.cluster.total_gpus());
}

// NVIDIA/nccl#527: p4dn.24xlarge (8x A100 40GB, 4x 100 Gb/s EFA) at 1 GiB on 2, 3 and 4 nodes.
// The 2-node row (57.17 GB/s) needs NICs faster than their 12.5 GB/s line rate in a ring (NCCL's
// tree on 2 nodes, as in nccl-tests#309), and the ring it feeds over-predicts 3 and 4 nodes by
// far. Fitted on 3 nodes, where NCCL rings, 4 nodes is within 10 %. Fitted as a tree (auto, which
// picks the tree on 2 nodes) the 2-node row gives a NIC below line rate; auto rings on 3 and 4
// nodes as NCCL does: 3 nodes within 10 %, 4 nodes not (the cluster loses 7 % per NIC from 3 to
// 4 nodes).
TEST(Extrapolation, P4dnEfaFromThreeNodesPredictsFourAndTwoNodeTreeNeedsNicsAboveLineRate) {
  const auto published = read_busbw_csv("p4dn_efa_issue527.csv");
  ASSERT_EQ(published.size(), 3u);
  const Scenario scenario = parse_scenario_text(
      "cluster:\n  nodes: 2\n  gpus_per_node: 8\n  gpu: a100-sxm-40gb\n"
      "  intra_node: {kind: nvswitch, bandwidth: 300GB/s, latency: 1us}\n  pcie: 32GB/s\n"
      "  nic: {count: 4, bandwidth: 100Gbps, latency: 3us}\n"
      "model: {name: resnet50}\n",
      "p4dn.yaml");
  const double bytes = 1073741824.0, line = 12.5e9;
  const double from_two = fit_nic_bandwidth(scenario, 2, bytes, published[0].second);
  EXPECT_GT(from_two, line * 1.05) << from_two;
  const double two_at_3 = busbw_with_nic(scenario, 3, bytes, from_two);
  const double two_at_4 = busbw_with_nic(scenario, 4, bytes, from_two);
  EXPECT_GT(two_at_4 / published[2].second - 1, 0.5) << two_at_4;
  const double from_three = fit_nic_bandwidth(scenario, 3, bytes, published[1].second);
  EXPECT_LT(from_three, line) << from_three;
  const double three_at_4 = busbw_with_nic(scenario, 4, bytes, from_three);
  EXPECT_LT(std::abs(three_at_4 / published[2].second - 1), 0.10) << three_at_4;
  Scenario automatic = scenario;
  automatic.sync.algorithm = AllReduceAlgorithm::kAuto;
  automatic.sync.latency_model = LatencyModel::kNccl;
  const double tree_two = fit_nic_bandwidth(automatic, 2, bytes, published[0].second);
  EXPECT_LT(tree_two, line) << tree_two;
  const double tree_at_3 = busbw_with_nic(automatic, 3, bytes, tree_two);
  const double tree_at_4 = busbw_with_nic(automatic, 4, bytes, tree_two);
  EXPECT_LT(std::abs(tree_at_3 / published[1].second - 1), 0.10) << tree_at_3;
  EXPECT_GT(tree_at_4 / published[2].second - 1, 0.10) << tree_at_4;
  std::printf("p4dn, auto: nic from 2 nodes %.2f GB/s -> %.2f at 3, %.2f at 4\n", tree_two / 1e9,
              tree_at_3, tree_at_4);
  std::printf(
      "p4dn: nic from 2 nodes %.2f GB/s -> %.2f at 3, %.2f at 4; from 3 nodes %.2f GB/s "
      "-> %.2f at 4 (measured %.2f, %.2f)\n",
      from_two / 1e9, two_at_3, two_at_4, from_three / 1e9, three_at_4, published[1].second,
      published[2].second);
}

// ALCF Polaris (argonne-lcf/alcf-nccl-tests, NCCL 2.21.5): 4x A100-SXM4-40GB on NVLink and two
// HPE Slingshot 11 NICs of 200 Gb/s per node. The whole 2-node log is fitted through the
// simulator with the scenario's ring (NCCL_ALGO was not set and the logs do not say what ran; the
// 2- and 8-node bus bandwidths agree within 1 %, as rings do and a 2-node tree, which moves half
// the network bytes, would not); the 8-, 256- and 540-node runs are predicted at their largest
// sizes. At 1 GiB NCCL's ring latency over 1,024 and 2,160 ranks is about 14 % and 20 % of the
// predicted time, so these counts test the latency model as much as the link.
TEST(Extrapolation, PolarisSlingshotFromTwoNodesPredictsEightTo540Nodes) {
  struct Row {
    int nodes;
    double bytes, busbw;
  };
  std::vector<Row> rows;
  for (const auto& r : csv_records("polaris_nccl221_large.csv"))  // nodes,bytes,time_us,busbw
    rows.push_back({std::stoi(r[0]), std::stod(r[1]), std::stod(r[3])});
  ASSERT_EQ(rows.size(), 12u);
  const Scenario scenario = parse_scenario_text(
      "cluster:\n  nodes: 2\n  gpus_per_node: 4\n  gpu: a100-sxm-40gb\n"
      "  intra_node: {kind: nvlink-mesh, bandwidth: 300GB/s}\n  pcie: 32GB/s\n"
      "  nic: {count: 2, bandwidth: 200Gbps}\n"
      "model: {name: resnet50}\n",
      "polaris.yaml");
  const MeasuredSweep two = read_log("polaris_2x4_nccl221.log");
  ASSERT_EQ(two.nodes, 2);
  ASSERT_EQ(two.gpus, 8);
  const PlatformFit fit = fit_platform(scenario.cluster, {two}, all_reduce_times(scenario));
  const FittedParameter& nic = parameter(fit, "cluster.nic.bandwidth");
  // Slingshot 11 through aws-ofi-nccl reaches 73.4 % of its line rate here: below the 75-100 %
  // documented for RDMA NICs (docs/calibration.md), so the fit says so, and is still used.
  EXPECT_NE(nic.flag.find("73.4 % of the scenario's 25.0 GB/s"), std::string::npos) << nic.flag;
  EXPECT_NE(nic.flag.find("outside the 75-100 %"), std::string::npos) << nic.flag;
  EXPECT_LT(nic.value, 25e9);  // below Slingshot 11's 200 Gb/s
  for (const Row& r : rows) {
    if (r.bytes != 1073741824.0) continue;
    const double predicted = predicted_busbw(scenario, fit, r.nodes, r.bytes);
    EXPECT_LT(std::abs(predicted / r.busbw - 1), 0.10) << r.nodes << " nodes: " << predicted;
    std::printf("polaris: nic %.2f GB/s from 2 nodes -> %.2f GB/s at %d nodes (measured %.2f)\n",
                nic.value / 1e9, predicted, r.nodes, r.busbw);
  }
}

// Two B200 clusters of Together AI with NCCL_ALGO=Ring, one published size per node count
// (report tables; b200_together_ring.csv): the NIC bandwidth is fitted on 2 nodes through the
// simulator and the larger counts predicted. flapping-airplanes keeps its ring bus bandwidth from
// 2 to 64 nodes (388-390 GB/s), and so does the model, within 10 % at every count; use3a-ss loses
// 15 % from 2 to 46 nodes, which no link fitted on 2 nodes shows (as nccl-tests #169's RoCE
// cluster): within 10 % up to 8 nodes, over it at 16 (+10.9 %) and 46 (+13.0 %).
TEST(Extrapolation, B200RingsFromTwoNodes) {
  struct Row {
    std::string cluster;
    int nodes;
    double bytes, busbw;
  };
  std::vector<Row> rows;
  for (const auto& r : csv_records("b200_together_ring.csv"))  // cluster,nodes,bytes,busbw
    rows.push_back({r[0], std::stoi(r[1]), std::stod(r[2]), std::stod(r[3])});
  ASSERT_EQ(rows.size(), 12u);
  const Scenario scenario = parse_scenario_text(
      "cluster:\n  nodes: 2\n  gpus_per_node: 8\n  gpu: b200-sxm-180gb\n"
      "  intra_node: {kind: nvswitch, bandwidth: 900GB/s}\n  pcie: 64GB/s\n"
      "  nic: {count: 8, bandwidth: 400Gbps}\n"
      "model: {name: resnet50}\n",
      "b200.yaml");
  for (const char* name : {"flapping-airplanes", "use3a-ss"}) {
    SCOPED_TRACE(name);
    std::vector<Row> mine;
    for (const Row& r : rows)
      if (r.cluster == name) mine.push_back(r);
    ASSERT_EQ(mine.size(), 6u);
    ASSERT_EQ(mine[0].nodes, 2);
    const double nic = fit_nic_bandwidth(scenario, 2, mine[0].bytes, mine[0].busbw);
    EXPECT_LT(nic, 50e9 * 1.01) << nic;  // at most the 400 Gb/s line rate (within 1 %)
    for (size_t i = 1; i < mine.size(); ++i) {
      const Row& r = mine[i];
      const double predicted = busbw_with_nic(scenario, r.nodes, r.bytes, nic);
      const double error = predicted / r.busbw - 1;
      if (std::string(name) == "flapping-airplanes" || r.nodes <= 8) {
        EXPECT_LT(std::abs(error), 0.10) << r.nodes << " nodes: " << predicted;
      } else if (r.nodes == 46) {
        EXPECT_GT(error, 0.10) << r.nodes << " nodes: " << predicted;
      }
      std::printf("%s: nic %.2f GB/s from 2 nodes -> %.2f at %d nodes (measured %.2f, %+.1f %%)\n",
                  name, nic / 1e9, predicted, r.nodes, r.busbw, 100 * error);
    }
  }
}

}  // namespace
}  // namespace ddpsim
