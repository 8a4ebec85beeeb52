// Progress of commands that run many simulations (sim/sweep/run_progress.h): runs done of the
// total and the time left from the estimated cost of the runs left, not the mean of those done;
// plain lines when stderr is not a terminal (checked here through a file), one line redrawn in
// place (\r) on a terminal.
#include <gtest/gtest.h>

#include <cstdio>
#include <string>
#include <vector>

#include "sim/sweep/run_progress.h"

namespace ddpsim {
namespace {

std::string contents(std::FILE* f) {
  std::rewind(f);
  std::string text;
  char buf[512];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) text.append(buf, n);
  return text;
}

TEST(RunProgress, TimeLeftFollowsTheEstimatedCostOfTheRunsLeft) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  // Three cheap runs done in 3 s; the one left is estimated at 10 times their cost: 30 s left,
  // where the mean of the runs done would say 1 s.
  RunProgress p("draws", {1, 1, 1, 10}, false, f);
  p.run_done(0, 1.0);
  p.run_done(2, 2.0);
  p.run_done(1, 3.0);
  p.run_done(3, 33.0);
  p.finish();
  EXPECT_EQ(contents(f),
            "draws: 1/4 runs, elapsed 0:01, left 0:12\n"
            "draws: 2/4 runs, elapsed 0:02, left 0:11\n"
            "draws: 3/4 runs, elapsed 0:03, left 0:10\n"
            "draws: 4/4 runs, elapsed 0:33, left 0:00\n");
  std::fclose(f);
}

// Two processes: a run estimated at 41 s started first and is still running on one of them while
// the other went through ten 1-s runs in 10 s. Elapsed time over the cost done would price the
// cost left (41 + 9) at 1 s per second: 50 s. Each run's own time gives the pace per process
// (1 s per estimated second) and two processes share what is left: 25 s.
TEST(RunProgress, RunsInParallelArePacedByTheirOwnTimes) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  std::vector<double> costs(20, 1.0);
  costs[0] = 41;
  RunProgress p("validate", costs, false, f);
  p.set_jobs(2);
  for (size_t i = 1; i <= 10; ++i) p.run_done(i, static_cast<double>(i), 1.0);
  EXPECT_NE(contents(f).find("validate: 10/20 runs, elapsed 0:10, left 0:25\n"), std::string::npos)
      << contents(f);
  // The pure rule: the runs left share the processes; one run left has one.
  EXPECT_DOUBLE_EQ(time_left(10, 50, 10, 10, 2, 11), 25);
  EXPECT_DOUBLE_EQ(time_left(10, 40, 10, 10, 2, 1), 40);
  EXPECT_DOUBLE_EQ(time_left(10, 50, 10, 0, 2, 11), 50);  // own times unknown: elapsed
  EXPECT_DOUBLE_EQ(time_left(0, 50, 10, 10, 2, 11), -1);
  std::fclose(f);
}

// Runs of one group (a scenario's draws) cost alike, and one group priced far off must not set
// the others' pace: group A was estimated at 9 s a run and takes 1 s, B and C as estimated. A's
// run left costs A's 1 s; D, not yet seen, its 4 estimated seconds at the median pace (1, B's and
// C's), not at the pace of everything done (4 s for 12 estimated: 1.3 s). Two processes.
TEST(RunProgress, ARunLeftCostsWhatItsGroupTookAndOthersTheMedianPace) {
  const std::vector<double> costs = {9, 9, 1, 2, 4};
  const std::vector<size_t> groups = {0, 0, 1, 2, 3};
  EXPECT_DOUBLE_EQ(time_left_by_group(costs, groups, {1, -1, 1, 2, -1}, 2), (1 + 4) / 2.0);
  // One process: the sum.
  EXPECT_DOUBLE_EQ(time_left_by_group(costs, groups, {1, -1, 1, 2, -1}, 1), 5);
  // No groups: every run its own; the median pace of A (1/9), B and C (1) is 1.
  EXPECT_DOUBLE_EQ(time_left_by_group(costs, {}, {1, -1, 1, 2, -1}, 1), 9 + 4);
  EXPECT_DOUBLE_EQ(time_left_by_group(costs, groups, {-1, -1, -1, -1, -1}, 2), -1);
  EXPECT_DOUBLE_EQ(time_left_by_group(costs, groups, {1, 1, 1, 2, 4}, 2), 0);
}

TEST(RunProgress, PlainLinesComeOncePerTenthOfTheRuns) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  RunProgress p("validate", std::vector<double>(95, 0.0), false, f);  // unknown costs: equal
  for (size_t i = 0; i < 95; ++i) p.run_done(i, static_cast<double>(i + 1));
  p.run_done(7, 99.0);  // a run reported twice counts once
  p.finish();
  const std::string text = contents(f);
  size_t lines = 0;
  for (char c : text) lines += c == '\n' ? 1 : 0;
  EXPECT_EQ(lines, 10u) << text;
  EXPECT_EQ(text.find('\r'), std::string::npos);
  EXPECT_NE(text.find("validate: 10/95 runs, elapsed 0:10, left 1:25\n"), std::string::npos)
      << text;
  EXPECT_NE(text.find("validate: 95/95 runs, elapsed 1:35, left 0:00\n"), std::string::npos)
      << text;
  std::fclose(f);
}

TEST(RunProgress, ATerminalGetsOneLineRedrawnInPlace) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  RunProgress p("compare --uncertainty", {2, 2}, true, f);
  p.run_done(1, 4.0);
  p.run_done(0, 8.0);
  p.finish();
  EXPECT_EQ(contents(f),
            "\r\033[Kcompare --uncertainty: 0/2 runs, elapsed 0:00, left ?"
            "\r\033[Kcompare --uncertainty: 1/2 runs, elapsed 0:04, left 0:04"
            "\r\033[Kcompare --uncertainty: 2/2 runs, elapsed 0:08, left 0:00\n");
  std::fclose(f);
}

}  // namespace
}  // namespace ddpsim
