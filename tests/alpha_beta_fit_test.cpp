// The piecewise alpha-beta fit: exact recovery of clean lines, relative-error weighting,
// non-negative terms, chosen breakpoints, ranges that cover every size, and a curve that is
// continuous and non-decreasing across its ranges on real nccl-tests logs.
#include "sim/measurements/alpha_beta_fit.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/measurements/calibration_profile.h"
#include "sim/measurements/nccl_tests_import.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

std::vector<double> sizes_8b_to(double max_bytes) {
  std::vector<double> s;
  for (double b = 8; b <= max_bytes; b *= 2) s.push_back(b);
  return s;
}

TEST(AlphaBetaFit, RecoversAnExactLineAsOneRange) {
  const double alpha = 12e-6, beta = 1.0 / 20e9;
  std::vector<double> bytes = sizes_8b_to(1 << 30), seconds;
  for (double b : bytes) seconds.push_back(alpha + beta * b);
  const AlphaBetaFit fit = fit_alpha_beta(bytes, seconds);
  ASSERT_EQ(fit.ranges.size(), 1u);
  EXPECT_NEAR(fit.ranges[0].alpha, alpha, alpha * 1e-9);
  EXPECT_NEAR(fit.ranges[0].beta, beta, beta * 1e-9);
  EXPECT_EQ(fit.ranges[0].min_bytes, 0);
  EXPECT_TRUE(std::isinf(fit.ranges[0].max_bytes));
  EXPECT_LT(fit.max_abs_rel_error, 1e-9);
}

TEST(AlphaBetaFit, LineFitMinimisesRelativeNotAbsoluteError) {
  // Two points 1000x apart in time, each 10% off a line in opposite directions: an absolute
  // fit would follow the large point and miss the small one by far more than 10%.
  const std::vector<double> bytes = {1e3, 1e6, 1e9};
  const std::vector<double> truth = {1e-5 + 1e-8, 1e-5 + 1e-5, 1e-5 + 1e-2};
  const std::vector<double> seconds = {truth[0] * 1.1, truth[1], truth[2] * 0.9};
  const AlphaBetaPoint p = fit_alpha_beta_line(bytes, seconds, 0, 3);
  double max_rel = 0;
  for (size_t i = 0; i < 3; ++i)
    max_rel = std::max(max_rel, std::abs((p.alpha + p.beta * bytes[i]) / seconds[i] - 1));
  EXPECT_LT(max_rel, 0.11);
}

TEST(AlphaBetaFit, PureBandwidthDataGivesZeroAlphaNeverNegative) {
  std::vector<double> bytes = {1e6, 2e6, 4e6, 8e6}, seconds;
  for (double b : bytes) seconds.push_back(b / 10e9);
  const AlphaBetaPoint p = fit_alpha_beta_line(bytes, seconds, 0, bytes.size());
  EXPECT_GE(p.alpha, 0);
  EXPECT_LT(p.alpha, 1e-15);
  EXPECT_NEAR(p.beta, 1e-10, 1e-19);
}

TEST(AlphaBetaFit, TimeFallingWithSizeClampsBetaToZero) {
  const std::vector<double> bytes = {1e3, 1e4, 1e5}, seconds = {3e-5, 2.9e-5, 2.8e-5};
  const AlphaBetaPoint p = fit_alpha_beta_line(bytes, seconds, 0, 3);
  EXPECT_EQ(p.beta, 0);
  EXPECT_GT(p.alpha, 2.8e-5);
  EXPECT_LT(p.alpha, 3e-5);
}

TEST(AlphaBetaFit, SplitsWhereTheProtocolChanges) {
  // Latency-bound line below ~1 MB, bandwidth-bound line above: NCCL picks the faster one.
  auto t = [](double b) { return std::min(20e-6 + b / 5e9, 200e-6 + b / 50e9); };
  std::vector<double> bytes = sizes_8b_to(1 << 30), seconds;
  for (double b : bytes) seconds.push_back(t(b));
  const AlphaBetaFit fit = fit_alpha_beta(bytes, seconds);
  ASSERT_EQ(fit.ranges.size(), 2u);
  EXPECT_NEAR(fit.ranges[0].alpha, 20e-6, 1e-12);
  EXPECT_NEAR(fit.ranges[1].beta, 1 / 50e9, 1e-20);
  // The crossover is at 180us / (1/5e9 - 1/50e9) = 1 MB; the boundary lies between the sizes
  // around it (2^19 and 2^20 are below, 2^21 above).
  EXPECT_GT(fit.ranges[0].max_bytes, 1 << 19);
  EXPECT_LT(fit.ranges[0].max_bytes, 1 << 21);
  EXPECT_LT(fit.max_abs_rel_error, 1e-9);
}

TEST(AlphaBetaFit, RangesAreContiguousFromZeroToInfinityWithMinimumPoints) {
  // Jittered four-regime curve: several ranges, each with at least min_points samples.
  std::vector<double> bytes = sizes_8b_to(double(1ull << 32)), seconds;
  for (size_t i = 0; i < bytes.size(); ++i) {
    const double b = bytes[i];
    const double base =
        std::min({24e-6 + b / 3e9, 30e-6 + b / 15e9, 50e-6 + b / 38e9, 150e-6 + b / 46.5e9});
    seconds.push_back(base * (1 + 0.008 * std::sin(1.7 * i)));
  }
  AlphaBetaFitOptions options;
  const AlphaBetaFit fit = fit_alpha_beta(bytes, seconds, options);
  ASSERT_GE(fit.ranges.size(), 2u);
  EXPECT_LE(static_cast<int>(fit.ranges.size()), options.max_ranges);
  EXPECT_EQ(fit.ranges.front().min_bytes, 0);
  EXPECT_TRUE(std::isinf(fit.ranges.back().max_bytes));
  for (size_t r = 0; r + 1 < fit.ranges.size(); ++r)
    EXPECT_EQ(fit.ranges[r].max_bytes, fit.ranges[r + 1].min_bytes);
  for (const AlphaBetaPoint& r : fit.ranges) {
    const auto inside = std::count_if(
        bytes.begin(), bytes.end(), [&](double b) { return b >= r.min_bytes && b < r.max_bytes; });
    EXPECT_GE(inside, options.min_points);
    EXPECT_GT(r.alpha + r.beta * r.min_bytes, 0);  // a later alpha is an intercept
    EXPECT_GE(r.beta, 0);
  }
  EXPECT_GE(fit.ranges.front().alpha, 0);
  EXPECT_LE(fit.max_abs_rel_error, options.tolerance);
  ASSERT_EQ(fit.rel_error.size(), bytes.size());
  for (size_t i = 0; i < bytes.size(); ++i)
    EXPECT_NEAR(fit.rel_error[i],
                (alpha_beta_predict(fit.ranges, bytes[i]) - seconds[i]) / seconds[i], 1e-15);
}

TEST(AlphaBetaFit, UnreachableToleranceStillHonoursMaxRanges) {
  // +-20% zig-zag noise can never be fitted within 1%: the least-squares split is returned.
  std::vector<double> bytes = sizes_8b_to(1 << 20), seconds;
  for (size_t i = 0; i < bytes.size(); ++i)
    seconds.push_back((10e-6 + bytes[i] / 1e10) * (i % 2 ? 1.2 : 0.8));
  AlphaBetaFitOptions options;
  options.tolerance = 0.01;
  options.max_ranges = 3;
  const AlphaBetaFit fit = fit_alpha_beta(bytes, seconds, options);
  EXPECT_LE(fit.ranges.size(), 3u);
  EXPECT_GT(fit.max_abs_rel_error, 0.01);
  EXPECT_TRUE(std::isinf(fit.ranges.back().max_bytes));
}

TEST(AlphaBetaFit, RejectsUnusableInput) {
  EXPECT_THROW(fit_alpha_beta({8}, {1e-5}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta({8, 16}, {1e-5}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta({16, 8}, {1e-5, 2e-5}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta({8, 16}, {1e-5, 0}), std::invalid_argument);
  EXPECT_THROW(fit_alpha_beta({8, 16}, {1e-5, std::numeric_limits<double>::quiet_NaN()}),
               std::invalid_argument);
}

TEST(AlphaBetaPredict, UsesTheRangeHoldingTheSizeMinInclusiveMaxExclusive) {
  const std::vector<AlphaBetaPoint> ranges = {
      {0, 1024, 1e-5, 1e-9}, {1024, std::numeric_limits<double>::infinity(), 2e-5, 1e-10}};
  EXPECT_DOUBLE_EQ(alpha_beta_predict(ranges, 1023), 1e-5 + 1023e-9);
  EXPECT_DOUBLE_EQ(alpha_beta_predict(ranges, 1024), 2e-5 + 1024e-10);
  EXPECT_DOUBLE_EQ(alpha_beta_predict(ranges, 1e12), 2e-5 + 1e12 * 1e-10);
}

// Continuity and monotonicity of a fitted table: at every boundary both lines give the same time
// (to rounding), and the curve never decreases on a dense grid of sizes.
void expect_continuous_and_monotone(const std::vector<AlphaBetaPoint>& ranges, double max_bytes,
                                    const std::string& what) {
  for (size_t r = 0; r + 1 < ranges.size(); ++r) {
    const double k = ranges[r].max_bytes;
    const double left = ranges[r].alpha + ranges[r].beta * k;
    const double right = ranges[r + 1].alpha + ranges[r + 1].beta * k;
    EXPECT_NEAR(right / left, 1.0, 1e-9) << what << " boundary " << k;
  }
  double previous = 0;
  for (double b = 1; b <= 2 * max_bytes; b *= 1.01) {
    const double t = alpha_beta_predict(ranges, b);
    EXPECT_GE(t, previous * (1 - 1e-12)) << what << " at " << b;
    previous = t;
  }
}

TEST(AlphaBetaFit, RealLogsGiveContinuousMonotoneCurvesCloseToTheLargeSizes) {
  const std::string dir = std::string(DDPSIM_SOURCE_DIR) + "/tests/data/nccl-tests/";
  struct Log {
    const char* file;
    int table;
  };
  for (const Log& l :
       {Log{"a3mega_h100_2x8_markdown.log", 0}, Log{"p4d_a100_2x8_efa_tag_output.log", 0},
        Log{"awsome_p4de_p5_readme_excerpt.md", 2}, Log{"all_reduce_2x8_a100_ib.log", 0}}) {
    const NcclTestsLog log = parse_nccl_tests_log(testing::read_text(dir + l.file), l.file,
                                                  CollectiveOp::kAllReduce, l.table);
    std::vector<double> bytes, seconds;
    for (const CollectiveSample& s : log.samples) {
      bytes.push_back(s.bytes);
      seconds.push_back(s.seconds);
    }
    const AlphaBetaFit fit = fit_alpha_beta(bytes, seconds);
    expect_continuous_and_monotone(fit.ranges, bytes.back(), l.file);
    // Above 64 MiB, where buckets live, every point is within 5 % (the measured curves are
    // smooth there; the protocol switches at smaller sizes cost the fit there, not here).
    for (size_t i = 0; i < bytes.size(); ++i) {
      if (bytes[i] >= 64.0 * 1024 * 1024) {
        EXPECT_LT(std::abs(fit.rel_error[i]), 0.05) << l.file << " at " << bytes[i];
      }
    }
  }
}

TEST(AlphaBetaFit, IndependentLinesWouldJumpWhereTheContinuousFitJoins) {
  // The piecewise fit that ddpsim used before fitted each range on its own: on the hand-made log
  // its lines disagree at the boundaries by several percent (a 1 MiB bucket cost more than a
  // 1.1 MiB one). The same partition, fitted continuously, joins them exactly.
  const std::string dir = std::string(DDPSIM_SOURCE_DIR) + "/tests/data/nccl-tests/";
  const NcclTestsLog log =
      parse_nccl_tests_log(testing::read_text(dir + "all_reduce_2x8_a100_ib.log"), "hand-made");
  std::vector<double> bytes, seconds;
  for (const CollectiveSample& s : log.samples) {
    bytes.push_back(s.bytes);
    seconds.push_back(s.seconds);
  }
  const AlphaBetaFit fit = fit_alpha_beta(bytes, seconds);
  ASSERT_GE(fit.ranges.size(), 2u);
  double worst_jump = 0;
  size_t first = 0;
  for (size_t r = 0; r + 1 < fit.ranges.size(); ++r) {
    size_t last = first;
    while (last < bytes.size() && bytes[last] < fit.ranges[r].max_bytes) ++last;
    size_t next = last;
    while (next < bytes.size() && bytes[next] < fit.ranges[r + 1].max_bytes) ++next;
    const AlphaBetaPoint a = fit_alpha_beta_line(bytes, seconds, first, last);
    const AlphaBetaPoint b = fit_alpha_beta_line(bytes, seconds, last, next);
    const double k = fit.ranges[r].max_bytes;
    worst_jump =
        std::max(worst_jump, std::abs((b.alpha + b.beta * k) / (a.alpha + a.beta * k) - 1));
    first = last;
  }
  EXPECT_GT(worst_jump, 0.005);
  expect_continuous_and_monotone(fit.ranges, bytes.back(), "hand-made");
}

TEST(NonNegativeLeastSquares, MatchesTheUnconstrainedSolutionOrClampsAtZero) {
  // x = (1, 2) fits exactly: no bound is active.
  const std::vector<std::vector<double>> a = {{1, 0}, {0, 1}, {1, 1}};
  std::vector<double> x = non_negative_least_squares(a, {1, 2, 3});
  EXPECT_NEAR(x[0], 1, 1e-12);
  EXPECT_NEAR(x[1], 2, 1e-12);
  // The unconstrained optimum (-1, 2) is infeasible: x0 = 0 and x1 minimises alone,
  // argmin (0 - -1)^2 + (x1 - 2)^2 + (x1 - 1)^2 -> x1 = 1.5.
  x = non_negative_least_squares(a, {-1, 2, 1});
  EXPECT_EQ(x[0], 0);
  EXPECT_NEAR(x[1], 1.5, 1e-12);
}

}  // namespace
}  // namespace ddpsim
