// The table of collective algorithms (sim/scenario/collective_algorithms.h): every algorithm
// sync.algorithm names has one row and the SimGrid constructors its row promises, the rows'
// resource-guard figures are the closed counts of their flows, and the places that once switched
// over the algorithms read the rows (the ledger's NCCL-latency row, the symmetric scope).
#include "sim/scenario/collective_algorithms.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "sim/engine/sync_factory.h"
#include "sim/scenario/enum_names.h"

namespace ddpsim {
namespace {

const std::vector<std::string> kNames = {"ring", "tree", "halving-doubling", "hierarchical",
                                         "auto", "nvls"};

TEST(CollectiveAlgorithms, EveryNameHasOneRowAndItsConstructors) {
  std::set<std::string> names;
  for (const CollectiveAlgorithm& row : collective_algorithms()) {
    SCOPED_TRACE(row.name);
    EXPECT_TRUE(names.insert(row.name).second);
    EXPECT_EQ(&collective_algorithm(row.id), &row);
    EXPECT_STREQ(algorithm_name(row.id), row.name);
    EXPECT_TRUE(has_constructors(row.id));
    // An all-reduce has guard figures; an algorithm of sharded calls alone has its own.
    EXPECT_EQ(row.guard != nullptr, row.all_reduce);
    if (!row.all_reduce) {
      EXPECT_EQ(row.sharded, ShardedRun::kOwn);
    }
  }
  EXPECT_EQ(names.size(), kNames.size());
  for (const std::string& name : kNames) {
    const auto id = enum_from_name<AllReduceAlgorithm>(name);
    ASSERT_TRUE(id.has_value()) << name;
    EXPECT_EQ(collective_algorithm(*id).name, name);
  }
}

TEST(CollectiveAlgorithms, GuardFiguresCountTheFlowsOfOneCall) {
  // 4 nodes x 8 GPUs, 2 out-edges per rank: ring flow 64, chunked 2 x 31 x 32 x 2, tree 128.
  const GuardShape g{32, 64, 3968, 128, 8, false};
  const auto figures = [&](AllReduceAlgorithm a, bool chunked = false) {
    GuardShape shape = g;
    shape.chunked = chunked;
    return collective_algorithm(a).guard(shape);
  };
  EXPECT_EQ(figures(AllReduceAlgorithm::kRing).messages, 64);
  EXPECT_EQ(figures(AllReduceAlgorithm::kRing, true).sleeps, 2 * 31 * 32);
  EXPECT_EQ(figures(AllReduceAlgorithm::kTree).messages, 128);
  EXPECT_EQ(figures(AllReduceAlgorithm::kAuto, true).messages, 3968);
  EXPECT_EQ(figures(AllReduceAlgorithm::kNvls).messages, 32 * 7 + 128);
  EXPECT_EQ(figures(AllReduceAlgorithm::kHalvingDoubling).messages, 2 * 32 * 5);
  EXPECT_EQ(figures(AllReduceAlgorithm::kHierarchical).sleeps, 3 * 32);
  GuardShape six = g;
  six.p = 6;  // q = 4: 2 x 4 x 2 + 4 x 2 for the folded pairs
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kHalvingDoubling).guard(six).messages, 24);
}

TEST(CollectiveAlgorithms, NcclLatencyAndChunkedModeFollowNccl) {
  // NCCL's table prices the tree and NVLS always, the ring and auto in flow mode (the chunked
  // mode charges alpha per step), MPI's and Horovod's algorithms never.
  using L = NcclLatencyUse;
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kTree).nccl_latency, L::kAlways);
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kNvls).nccl_latency, L::kAlways);
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kRing).nccl_latency, L::kFlowMode);
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kAuto).nccl_latency, L::kFlowMode);
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kHalvingDoubling).nccl_latency, L::kNever);
  EXPECT_EQ(collective_algorithm(AllReduceAlgorithm::kHierarchical).nccl_latency, L::kNever);
  for (const CollectiveAlgorithm& row : collective_algorithms())
    EXPECT_EQ(row.chunked_mode, row.id == AllReduceAlgorithm::kRing ||
                                    row.id == AllReduceAlgorithm::kAuto)
        << row.name;
}

}  // namespace
}  // namespace ddpsim
