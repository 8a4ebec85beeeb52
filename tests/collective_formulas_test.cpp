// The pure closed forms of sim/cost/collective_formulas.h: NCCL's tree structure, the numbers
// each formula gives for hand-computed cases, and the identities that tie the PS formulas to
// the ring and to each other.
#include "sim/cost/collective_formulas.h"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

namespace ddpsim {
namespace {

constexpr double kS = 1e9, kB = 1e10, kA = 5e-6;

void expect_relative(double got, double want, double tolerance = 1e-12) {
  EXPECT_NEAR(got, want, tolerance * std::fabs(want)) << "relative error " << (got - want) / want;
}

TEST(NcclTree, EightRanksMatchNcclGetBtree) {
  // ncclGetBtree(8): 0 -> 4; 4 -> 2, 6; 2 -> 1, 3; 6 -> 5, 7.
  const auto t = nccl_binary_tree(8);
  EXPECT_EQ(t[0].parent, -1);
  EXPECT_EQ(t[0].children, (std::vector<int>{4}));
  EXPECT_EQ(t[4].parent, 0);
  EXPECT_EQ(t[4].children, (std::vector<int>{2, 6}));
  EXPECT_EQ(t[2].children, (std::vector<int>{1, 3}));
  EXPECT_EQ(t[6].children, (std::vector<int>{5, 7}));
  for (int odd : {1, 3, 5, 7}) EXPECT_TRUE(t[odd].children.empty());
  // The mirror (8 is even): rank r plays 7 - r.
  const auto d = nccl_double_binary_tree(8);
  EXPECT_EQ(d[1][7].parent, -1);
  EXPECT_EQ(d[1][7].children, (std::vector<int>{3}));
  EXPECT_EQ(d[1][3].parent, 7);
}

TEST(NcclTree, RanksAreLeavesInAtLeastOneTreeAndBothTreesSpan) {
  for (int n = 1; n <= 70; ++n) {
    SCOPED_TRACE(n);
    const auto trees = nccl_double_binary_tree(n);
    for (const auto& tree : trees) {
      int roots = 0, edges = 0;
      for (int r = 0; r < n; ++r) {
        roots += tree[r].parent < 0;
        edges += static_cast<int>(tree[r].children.size());
        EXPECT_LE(tree[r].children.size(), 2u);
        for (int c : tree[r].children) EXPECT_EQ(tree[c].parent, r);
      }
      EXPECT_EQ(roots, 1);
      EXPECT_EQ(edges, n - 1);
      EXPECT_EQ(tree_depth(tree), static_cast<int>(std::ceil(std::log2(n))));
    }
    // Even n: the mirror makes the trees complementary. Odd n: NCCL shifts instead, and rank 0
    // (root of the first tree, playing rank n-1 in the second) may be inner in both.
    for (int r = n % 2 == 0 ? 0 : 1; r < n; ++r)
      EXPECT_FALSE(!trees[0][r].children.empty() && !trees[1][r].children.empty()) << r;
  }
}

TEST(DoubleBinaryTree, BandwidthTermIsSOverBForTwoRanksAndTwoSOverBFromFour) {
  expect_relative(double_binary_tree_time(2, kS, kB, kA), kS / kB + 2 * kA);
  expect_relative(double_binary_tree_time(3, kS, kB, kA), 1.5 * kS / kB + 4 * kA);
  for (int n : {4, 5, 8, 9, 64, 1000})
    expect_relative(double_binary_tree_time(n, kS, kB, kA),
                    2 * kS / kB + 2 * std::ceil(std::log2(n)) * kA);
  EXPECT_EQ(double_binary_tree_time(1, kS, kB, kA), 0);
}

TEST(Chain, MiddleGpusCarrySEachWay) {
  expect_relative(chain_allreduce_time(2, kS, kB, kA), kS / kB + 2 * kA);
  expect_relative(chain_allreduce_time(8, kS, kB, kA), 2 * kS / kB + 14 * kA);
}

TEST(HalvingDoubling, PowerOfTwoAndFoldedRemainder) {
  expect_relative(halving_doubling_time(8, kS, kB, kA), 2.0 * 7 / 8 * kS / kB + 6 * kA);
  expect_relative(halving_doubling_time(2, kS, kB, kA), ring_allreduce_time(2, kS, kB, kA));
  // p = 6: q = 4 main ranks after folding 2 pairs: 2(S/B + alpha) + 3/2 S/B + 4 alpha.
  expect_relative(halving_doubling_time(6, kS, kB, kA),
                  2 * (kS / kB + kA) + 1.5 * kS / kB + 4 * kA);
  EXPECT_EQ(halving_doubling_volume(8, kS), 14 * kS);
  EXPECT_EQ(halving_doubling_volume(6, kS), 6 * kS + 4 * kS);
}

TEST(Hierarchical, PhasesAddUpAndRailsShareNics) {
  HierarchicalLinks l;
  l.nodes = 4;
  l.gpus_per_node = 8;
  l.nics = 2;
  l.intra_bandwidth = 2e11;
  l.intra_alpha = 1e-6;
  l.nic_bandwidth = 2.5e10;
  l.pcie_bandwidth = 3.2e10;
  l.nic_alpha = 3e-6;
  // Intra: 2 * 7/8 S / 2e11 + 14 us. Inter: 4 GPUs per NIC, 2 * 3/4 * S/8 * 4 / 2.5e10 + 18 us.
  const double want = 2 * 7.0 / 8 * kS / 2e11 + 14e-6 + 2 * 0.75 * kS / 8 * 4 / 2.5e10 + 18e-6;
  expect_relative(hierarchical_allreduce_time(l, kS), want);
  l.nics = 8;  // one GPU per NIC: PCIe (3.2e10) is faster than the NIC, the NIC still binds
  expect_relative(hierarchical_allreduce_time(l, kS),
                  2 * 7.0 / 8 * kS / 2e11 + 14e-6 + 2 * 0.75 * kS / 8 / 2.5e10 + 18e-6);
  EXPECT_DOUBLE_EQ(hierarchical_volume_per_rank(4, 8, 8.0), 2 * 7.0 / 8 * 8 + 2 * 0.75 * 1);
}

// ---------------------------------------------------------------- reduce-scatter, all-gather

TEST(ShardedForms, RingHalvesTheAllReduce) {
  for (int p : {2, 8, 64, 512}) {
    expect_relative(ring_reduce_scatter_time(p, kS, kB, kA),
                    (p - 1.0) / p * kS / kB + (p - 1) * kA);
    expect_relative(ring_all_gather_time(p, kS, kB, kA), ring_reduce_scatter_time(p, kS, kB, kA));
    expect_relative(2 * ring_reduce_scatter_time(p, kS, kB, kA),
                    ring_allreduce_time(p, kS, kB, kA));
  }
  EXPECT_EQ(ring_reduce_scatter_time(1, kS, kB, kA), 0);
}

TEST(ShardedForms, HalvingDoublingHalvesAndTheFold) {
  // Powers of two: exactly half the all-reduce.
  for (int p : {2, 8, 64})
    expect_relative(2 * halving_doubling_reduce_scatter_time(p, kS, kB, kA),
                    halving_doubling_time(p, kS, kB, kA));
  expect_relative(halving_doubling_reduce_scatter_time(8, kS, kB, kA), 7.0 / 8 * kS / kB + 3 * kA);
  // p = 6: q = 4 after folding 2 pairs: S then S/6 around the fold, 3/4 S and 2 steps inside.
  expect_relative(halving_doubling_reduce_scatter_time(6, kS, kB, kA),
                  (kS + kS / 6) / kB + 2 * kA + 0.75 * kS / kB + 2 * kA);
  EXPECT_EQ(halving_doubling_reduce_scatter_volume(8, kS), 7 * kS);
  expect_relative(halving_doubling_reduce_scatter_volume(6, kS), 3 * kS + 2 * (kS + kS / 6));
}

TEST(ShardedForms, HierarchicalAndRails) {
  HierarchicalLinks l;
  l.nodes = 4;
  l.gpus_per_node = 8;
  l.nics = 2;
  l.intra_bandwidth = 2e11;
  l.intra_alpha = 1e-6;
  l.nic_bandwidth = 2.5e10;
  l.pcie_bandwidth = 3.2e10;
  l.nic_alpha = 3e-6;
  // 4 GPUs share a NIC: a rail gets 2.5e10 / 4; with 8 NICs the NIC (below PCIe) binds.
  expect_relative(rail_bandwidth(l), 2.5e10 / 4);
  // Intra: 7/8 S / 2e11 + 7 us. Inter: 3/4 * S/8 / (2.5e10/4) + 9 us.
  expect_relative(hierarchical_reduce_scatter_time(l, kS),
                  7.0 / 8 * kS / 2e11 + 7e-6 + 0.75 * kS / 8 * 4 / 2.5e10 + 9e-6);
  expect_relative(2 * hierarchical_reduce_scatter_time(l, kS), hierarchical_allreduce_time(l, kS));
  EXPECT_DOUBLE_EQ(hierarchical_reduce_scatter_volume_per_rank(4, 8, 8.0), 7.0 / 8 * 8 + 0.75);
  l.nics = 8;
  expect_relative(rail_bandwidth(l), 2.5e10);
  l.nic_bandwidth = 1e11;
  expect_relative(rail_bandwidth(l), 3.2e10);
}

TEST(ParameterServer, PushIsBoundByTheWorkerNicOrTheServersDownlinks) {
  expect_relative(ps_push_time(8, 8, kS, kB, kB), kS / kB);
  expect_relative(ps_push_time(8, 2, kS, kB, kB), 4 * kS / kB);
  expect_relative(ps_push_time(8, 2, kS, kB, 4 * kB), kS / kB);
  // All servers colocated: push + pull is the ring's bandwidth term.
  expect_relative(2 * colocated_ps_push_time(8, 8, kS, kB), 2.0 * 7 / 8 * kS / kB);
  expect_relative(colocated_ps_push_time(8, 1, kS, kB), 7 * kS / kB);
}

TEST(Byteps, OptimumSpansAllReduceAndDedicatedPs) {
  for (int n : {2, 4, 8, 32}) {
    SCOPED_TRACE(n);
    // k = 0: the colocated servers alone, the ring's bandwidth term.
    expect_relative(byteps_optimum_time(n, 0, kS, kB), 2.0 * (n - 1) / n * kS / kB);
    // k = n: as many CPU machines as GPU machines, S/B (push and pull overlapped).
    expect_relative(byteps_optimum_time(n, n, kS, kB), kS / kB);
    for (int k = 0; k < n; ++k) {
      const BytepsShares s = byteps_shares(n, k);
      expect_relative(n * s.colocated + k * s.cpu, 1.0);
      // The shares balance a GPU machine's traffic per direction (its worker's push to others
      // plus its server's pulls to others) with a CPU machine's, both equal to the optimum.
      const double gpu_machine = kS * (1 - s.colocated) + (n - 1) * s.colocated * kS;
      expect_relative(gpu_machine / kB, byteps_optimum_time(n, k, kS, kB));
      if (k > 0) expect_relative(n * s.cpu * kS / kB, byteps_optimum_time(n, k, kS, kB));
    }
  }
  const BytepsShares many = byteps_shares(4, 6);
  EXPECT_EQ(many.colocated, 0);
  EXPECT_DOUBLE_EQ(many.cpu, 1.0 / 6);
  // Hand-computed: n = 4, k = 1 -> n^2 + kn - 2k = 18, y = 3/18, x = 6/18, time 24/18 S/B.
  EXPECT_DOUBLE_EQ(byteps_shares(4, 1).colocated, 3.0 / 18);
  EXPECT_DOUBLE_EQ(byteps_shares(4, 1).cpu, 6.0 / 18);
  expect_relative(byteps_optimum_time(4, 1, kS, kB), 24.0 / 18 * kS / kB);
}

}  // namespace
}  // namespace ddpsim
