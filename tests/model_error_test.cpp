// The model's measured error (sim/validation/discrepancy.h), the statistics that score bands
// (beta_distribution.h) and the pair verdicts of compare (pair_verdict.h): closed forms,
// published table values, and the properties issue 32 asks for (headline inside its band, a
// fully measured scenario still banded, leave-one-source-out, decisions that agree with
// themselves).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "sim/text/input_error.h"
#include "sim/uncertainty/pair_verdict.h"
#include "sim/validation/beta_distribution.h"
#include "sim/validation/discrepancy.h"

namespace ddpsim {
namespace {

TEST(BetaDistribution, IncompleteBetaClosedForms) {
  // I_x(1, 1) = x; I_x(a, 1) = x^a; I_x(1, b) = 1 - (1 - x)^b.
  EXPECT_NEAR(incomplete_beta(1, 1, 0.3), 0.3, 1e-12);
  EXPECT_NEAR(incomplete_beta(3, 1, 0.6), std::pow(0.6, 3), 1e-12);
  EXPECT_NEAR(incomplete_beta(1, 4, 0.2), 1 - std::pow(0.8, 4), 1e-12);
  EXPECT_NEAR(incomplete_beta(2.5, 2.5, 0.5), 0.5, 1e-12);  // symmetric
  EXPECT_NEAR(beta_quantile(3, 1, std::pow(0.6, 3)), 0.6, 1e-9);
}

TEST(BetaDistribution, StudentTMatchesPublishedTables) {
  // t(0.9): 3.078 (1 df), 1.886 (2), 1.372 (10), 1.310 (30); t(0.975, 5) = 2.571.
  EXPECT_NEAR(student_t_quantile(0.9, 1), 3.0777, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.9, 2), 1.8856, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.9, 10), 1.3722, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.9, 30), 1.3104, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.975, 5), 2.5706, 1e-4);
  EXPECT_NEAR(student_t_quantile(0.1, 10), -1.3722, 1e-4);
}

TEST(BetaDistribution, ClopperPearsonMatchesPublishedValues) {
  // 8 of 10 at 95 %: 0.4439-0.9748; 0 of 10: upper 1 - 0.025^(1/10) = 0.3085.
  const ShareInterval a = clopper_pearson(8, 10);
  EXPECT_NEAR(a.low, 0.4439, 1e-4);
  EXPECT_NEAR(a.high, 0.9748, 1e-4);
  const ShareInterval b = clopper_pearson(0, 10);
  EXPECT_EQ(b.low, 0);
  EXPECT_NEAR(b.high, 1 - std::pow(0.025, 0.1), 1e-9);
  const ShareInterval c = clopper_pearson(10, 10);
  EXPECT_NEAR(c.low, std::pow(0.025, 0.1), 1e-9);
  EXPECT_EQ(c.high, 1);
}

ResidualRow row(const std::string& id, const std::string& source, const std::string& binds,
                double residual, double spread = 0.01, int gpus = 16) {
  ResidualRow r;
  r.id = id;
  r.source = source;
  r.mechanism = {binds, "allreduce"};
  r.support = {"rdma", "nvswitch", 8, gpus};
  r.measured = 100 * std::exp(residual);
  r.median = 100;
  r.nominal = 101;
  r.residual = residual;
  r.nominal_residual = std::log(r.measured / r.nominal);
  r.draw_spread = spread;
  return r;
}

// 12 compute rows over three sources, residuals -0.06 ... +0.05, and 3 network rows.
std::vector<ResidualRow> sample_rows() {
  std::vector<ResidualRow> rows;
  for (int i = 0; i < 12; ++i)
    rows.push_back(
        row("C" + std::to_string(i), "src" + std::to_string(i % 3), "compute", -0.06 + 0.01 * i));
  for (int i = 0; i < 3; ++i)
    rows.push_back(row("N" + std::to_string(i), "net", "network-rdma", 0.1 + 0.05 * i));
  return rows;
}

const SupportFeatures kSupport{"rdma", "nvswitch", 8, 16};

TEST(ModelError, ShiftIsTheMedianResidualAndTheSpreadIsDeconvolved) {
  const std::vector<ResidualRow> rows = sample_rows();
  const Discrepancy d = estimate_discrepancy(rows, {"compute", "allreduce"}, kSupport);
  ASSERT_TRUE(d.known());
  EXPECT_EQ(d.pooled, "class");
  EXPECT_EQ(d.cases, 12);
  EXPECT_NEAR(d.shift, -0.005, 1e-12);  // median of -0.06 ... 0.05
  std::vector<double> r;
  for (int i = 0; i < 12; ++i) r.push_back(-0.06 + 0.01 * i);
  const double spread = robust_spread(r);
  EXPECT_NEAR(d.spread, spread, 1e-12);
  // The draws explain 0.01^2 of the variance; what is left, inflated for 12 cases.
  const double beyond = std::sqrt(1 - 1e-4 / (spread * spread));
  const double few = student_t_quantile(0.9, 11) / kZ90 * std::sqrt(1 + 1.0 / 12);
  EXPECT_NEAR(d.scale, beyond * few, 1e-9);
  ASSERT_EQ(d.offsets.size(), 20u);
  EXPECT_TRUE(std::is_sorted(d.offsets.begin(), d.offsets.end()));
  EXPECT_GT(d.resolution, 0);
}

TEST(ModelError, PoolsBelowTenCasesAndLeavesTheOwnSourceOut) {
  const std::vector<ResidualRow> rows = sample_rows();
  // Three network rows: fewer than 10 in the class and in its binds: every row.
  const Discrepancy net = estimate_discrepancy(rows, {"network-rdma", "allreduce"}, kSupport);
  EXPECT_EQ(net.pooled, "all");
  EXPECT_EQ(net.cases, 15);
  // A class of 3 cases says so, and its borrowed residuals are errors at documented values.
  ASSERT_EQ(net.distance.size(), 1u);
  EXPECT_EQ(net.distance[0],
            "its class (network-rdma/allreduce) has 3 validated cases, fewer than 10");
  EXPECT_TRUE(net.borrowed());
  std::vector<double> at_nominal;
  for (const ResidualRow& r : rows) at_nominal.push_back(r.nominal_residual);
  std::sort(at_nominal.begin(), at_nominal.end());
  EXPECT_NEAR(net.shift, at_nominal[7], 1e-12);  // the median of 15
  // Without src0 the compute class keeps 8 rows (< 10): pooled over every row but src0's.
  const Discrepancy out = estimate_discrepancy(rows, {"compute", "allreduce"}, kSupport, "src0");
  EXPECT_EQ(out.pooled, "all");
  EXPECT_EQ(out.cases, 11);
  EXPECT_TRUE(out.borrowed());
  // With its own class, the residuals against the draws' median, and the draws as they are.
  const Discrepancy own = estimate_discrepancy(rows, {"compute", "allreduce"}, kSupport);
  EXPECT_FALSE(own.borrowed());
  const std::vector<double> draws = {80, 85, 90, 95, 100};
  EXPECT_EQ(anchored_draws(draws, own, 120), draws);
}

// Borrowed residuals carry no other class's draws: the scenario's draws are moved so that their
// median is its own nominal run, and the band's median is that run times the borrowed shift.
// The class's own residuals already hold its draws' offset, so its draws stay where they are.
TEST(ModelError, BorrowedErrorsAnchorTheDrawsAtTheNominalRun) {
  const std::vector<ResidualRow> rows = sample_rows();
  const Discrepancy net = estimate_discrepancy(rows, {"network-rdma", "allreduce"}, kSupport);
  const std::vector<double> draws = {80, 85, 90, 95, 100};  // median 90, nominal 120
  const std::vector<double> anchored = anchored_draws(draws, net, 120);
  ASSERT_EQ(anchored.size(), draws.size());
  EXPECT_NEAR(anchored[2], 120, 1e-12);
  EXPECT_NEAR(anchored[0] / anchored[4], 0.8, 1e-12);  // the draws' spread is kept
  const Band b = combined_band(anchored, net);
  EXPECT_NEAR(b.p50, 120 * std::exp(net.shift), 120 * 0.01);
  // A time anchors at the nominal step the same way.
  const Band t = combined_band(anchored_draws({0.8, 0.9, 1.0}, net, 0.5), net, false);
  EXPECT_NEAR(t.p50, 0.5 * std::exp(-net.shift), 0.5 * 0.02);
  // No nominal figure, no anchoring.
  EXPECT_EQ(anchored_draws(draws, net, 0), draws);
}

TEST(ModelError, PerturbingOneSourceMovesOnlyOtherSourcesBands) {
  std::vector<ResidualRow> rows = sample_rows();
  const std::vector<double> draws = {90, 95, 100, 105, 110};
  auto band_for = [&](const std::string& source) {
    return combined_band(draws,
                         estimate_discrepancy(rows, {"compute", "allreduce"}, kSupport, source));
  };
  const Band own_before = band_for("src1"), other_before = band_for("src2");
  for (ResidualRow& r : rows)  // src1 measured 22 % faster: both its residuals move
    if (r.source == "src1") {
      r.residual += 0.2;
      r.nominal_residual += 0.2;
    }
  const Band own_after = band_for("src1"), other_after = band_for("src2");
  EXPECT_EQ(own_before.p10, own_after.p10);
  EXPECT_EQ(own_before.p50, own_after.p50);
  EXPECT_EQ(own_before.p90, own_after.p90);
  EXPECT_NE(other_before.p50, other_after.p50);
}

TEST(ModelError, AFullyMeasuredScenarioStillHasABandAroundItsHeadline) {
  const Discrepancy d = estimate_discrepancy(sample_rows(), {"compute", "allreduce"}, kSupport);
  // Nothing left to draw: every draw is the nominal value.
  const Band b = combined_band(std::vector<double>(8, 1000.0), d);
  EXPECT_LT(b.p10, b.p50);
  EXPECT_LT(b.p50, b.p90);
  EXPECT_NEAR(b.p50, 1000 * std::exp(d.shift), 1000 * 0.01);
  // A time moves the other way: a faster reality is a shorter step.
  const Band t = combined_band(std::vector<double>(8, 0.1), d, false);
  EXPECT_NEAR(t.p50 * b.p50, 100, 1.0);
  // Headline inside its band whatever the draws' skew.
  const Band s = combined_band({500, 900, 950, 1000, 1000, 1000}, d);
  EXPECT_LE(s.p10, s.p50);
  EXPECT_LE(s.p50, s.p90);
}

TEST(ModelError, UnlikeEveryValidatedCaseSaysWhyAndWidens) {
  const std::vector<ResidualRow> rows = sample_rows();
  const Discrepancy near = estimate_discrepancy(rows, {"compute", "allreduce"}, kSupport);
  EXPECT_TRUE(near.distance.empty());
  const Discrepancy tcp =
      estimate_discrepancy(rows, {"compute", "allreduce"}, {"tcp", "nvswitch", 8, 16});
  ASSERT_EQ(tcp.distance.size(), 1u);
  EXPECT_NE(tcp.distance[0].find("tcp"), std::string::npos);
  EXPECT_EQ(tcp.pooled, "all");
  const Discrepancy big =
      estimate_discrepancy(rows, {"compute", "allreduce"}, {"rdma", "nvswitch", 8, 65});
  ASSERT_EQ(big.distance.size(), 1u);
  EXPECT_NE(big.distance[0].find("65 GPUs"), std::string::npos);
  // Same residuals (every row, at documented values), twice the spread: the network class of 3
  // rows is widened too (for its size), so both are twice the unwidened scale.
  const Discrepancy all = estimate_discrepancy(rows, {"network-rdma", "allreduce"}, kSupport);
  EXPECT_NEAR(big.scale, all.scale, 1e-12);
  EXPECT_TRUE(big.borrowed());
  std::vector<ResidualRow> as_own = rows;  // every row in one class: its own residuals, unwidened
  for (ResidualRow& r : as_own) {
    r.mechanism = {"compute", "allreduce"};
    r.residual = r.nominal_residual;
  }
  const Discrepancy unwidened = estimate_discrepancy(as_own, {"compute", "allreduce"}, kSupport);
  EXPECT_TRUE(unwidened.distance.empty());
  EXPECT_NEAR(big.scale, kDistanceInflation * unwidened.scale, 1e-12);
  // No row synchronises by ps, and its class has none: two reasons.
  const Discrepancy ps = estimate_discrepancy(rows, {"compute", "ps"}, kSupport);
  EXPECT_EQ(ps.distance.size(), 2u);
}

TEST(ModelError, RowsRoundTripAndBadRowsNameTheirPlace) {
  const std::vector<ResidualRow> rows = sample_rows();
  const std::string text = format_residual_rows(rows);
  const std::vector<ResidualRow> back = parse_residual_rows(text, "d.csv");
  ASSERT_EQ(back.size(), rows.size());
  EXPECT_EQ(format_residual_rows(back), text);
  const std::string header = text.substr(0, text.find('\n') + 1);
  try {
    parse_residual_rows(header + "X,s,compute,allreduce,rdma,nvswitch,8,16,1,1,1,0.1,0.1,oops\n",
                        "d.csv");
    FAIL() << "accepted a bad number";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().line, 2);
    EXPECT_EQ(e.where().column, 56);
    EXPECT_NE(e.message().find("draw_spread"), std::string::npos);
  }
  try {
    parse_residual_rows(header + "X,s,fast,allreduce,rdma,nvswitch,8,16,1,1,1,0.1,0.1,0\n",
                        "d.csv");
    FAIL() << "accepted an unknown class";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where().column, 5);
    EXPECT_NE(e.message().find("network-tcp"), std::string::npos);
  }
  EXPECT_THROW(parse_residual_rows("case,source\n", "d.csv"), InputError);
}

Discrepancy spread_error(double half_width) {
  Discrepancy d;
  d.mechanism = {"compute", "allreduce"};
  for (int j = 0; j < 20; ++j) d.offsets.push_back(-half_width + 2 * half_width * (j + 0.5) / 20);
  d.resolution = half_width / 2;
  return d;
}

TEST(PairVerdict, DecidedNeedsTheShareItsBoundAndAGapBeyondResolution) {
  const Discrepancy e = spread_error(0.05);
  std::vector<double> a, b;
  for (int k = 0; k < 32; ++k) {
    b.push_back(1000 + k);
    a.push_back(1.1 * b.back());
  }
  // Shared error: a is 10 % faster in every world.
  const PairVerdict v = judge_pair(a, e, b, e, true);
  EXPECT_EQ(v.leader, 0u);
  EXPECT_DOUBLE_EQ(v.share, 1.0);
  EXPECT_NEAR(v.share_low, std::pow(0.05, 1.0 / 32), 1e-9);
  EXPECT_TRUE(v.settled());
  EXPECT_TRUE(v.decided());
  EXPECT_NEAR(v.ratio_p50, 1.1, 0.01);
  // 8 draws are not enough to bound the share at 90 % (0.05^(1/8) = 0.69): not settled.
  const PairVerdict few =
      judge_pair({a.begin(), a.begin() + 8}, e, {b.begin(), b.begin() + 8}, e, true);
  EXPECT_FALSE(few.settled());
  EXPECT_FALSE(few.decided());
  // A 0.1 % gap is never a decision, however consistent.
  std::vector<double> c;
  for (double x : b) c.push_back(x * 1.001);
  const PairVerdict close = judge_pair(c, e, b, e, true);
  EXPECT_DOUBLE_EQ(close.share, 1.0);
  EXPECT_FALSE(close.decided());
  // Independent errors of +-5 % each blur a 10 % gap: no longer every world.
  const PairVerdict apart = judge_pair(a, spread_error(0.08), b, spread_error(0.08), false);
  EXPECT_LT(apart.share, 1.0);
  EXPECT_GT(apart.share, 0.5);
  // The same numbers: a tie.
  EXPECT_TRUE(judge_pair(b, e, b, e, true).tie);
}

TEST(PairVerdict, TheStarGoesToTheCellThePairsSupport) {
  // Three cells: 1 beats 0 and 2, 0 beats 2; cell 2 has the highest headline (a skewed band).
  PairVerdict p01, p02, p12;
  p01.leader = 1, p01.other = 0;
  p02.leader = 0, p02.other = 2;
  p12.leader = 1, p12.other = 2;
  bool every = false;
  EXPECT_EQ(supported_winner({p01, p02, p12}, {10, 11, 12}, {true, true, true}, &every), 1);
  EXPECT_TRUE(every);
  // A cell that cannot run is never starred.
  EXPECT_EQ(supported_winner({p02}, {10, 11, 12}, {true, false, true}, &every), 0);
  // A cycle: nobody leads every pair; the most leads, then the headline.
  PairVerdict q01, q12, q20;
  q01.leader = 0, q01.other = 1;
  q12.leader = 1, q12.other = 2;
  q20.leader = 2, q20.other = 0;
  EXPECT_EQ(supported_winner({q01, q12, q20}, {10, 11, 12}, {true, true, true}, &every), 2);
  EXPECT_FALSE(every);
}

}  // namespace
}  // namespace ddpsim
