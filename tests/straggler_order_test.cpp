// Order statistics of the drawn straggler factors (sim/cost/straggler_order.h): the expected
// slowest of n draws that the symmetric scope runs for a cluster of n GPUs. Uniform has a closed
// form; the lognormal's numerical integral is checked against its closed form for one draw and
// against large seeded Monte Carlo samples of straggler_factor itself (the draws the full
// simulation makes), within 4 standard errors (deterministic: the seeds are fixed).
#include "sim/cost/straggler_order.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "sim/cost/stragglers.h"

namespace ddpsim {
namespace {

StragglerSpec uniform(double max) {
  StragglerSpec s;
  s.kind = StragglerKind::kUniform;
  s.max = max;
  return s;
}

StragglerSpec lognormal(double sigma) {
  StragglerSpec s;
  s.kind = StragglerKind::kLognormal;
  s.sigma = sigma;
  return s;
}

double normal_cdf(double x) { return 0.5 * std::erfc(-x / std::sqrt(2.0)); }

// Mean and standard error of the slowest of n draws over `samples` seeds.
struct Sample {
  double mean = 0, se = 0;
};
Sample monte_carlo(const StragglerSpec& spec, int n, int samples) {
  double sum = 0, sum2 = 0;
  for (int k = 0; k < samples; ++k) {
    double slowest = 0;
    for (int r = 0; r < n; ++r) slowest = std::max(slowest, straggler_factor(spec, 1000 + k, r, 0));
    sum += slowest;
    sum2 += slowest * slowest;
  }
  const double mean = sum / samples;
  const double var = (sum2 / samples - mean * mean) * samples / (samples - 1);
  return {mean, std::sqrt(var / samples)};
}

TEST(StragglerOrder, UniformIsTheBetaClosedForm) {
  const StragglerSpec s = uniform(2.5);
  for (int n : {1, 2, 64, 4096, 131072}) {
    const FactorMoments m = slowest_of(s, n);
    EXPECT_DOUBLE_EQ(m.mean, 1 + 1.5 * n / (n + 1.0)) << n;
    EXPECT_DOUBLE_EQ(m.sd, 1.5 * std::sqrt(n / ((n + 1.0) * (n + 1.0) * (n + 2.0)))) << n;
  }
  EXPECT_DOUBLE_EQ(slowest_of(s, 1).mean, 1.75);  // one draw: the middle of [1, 2.5]
  EXPECT_DOUBLE_EQ(slowest_of(uniform(1), 512).mean, 1);
  for (int n : {1, 8, 64}) {
    const Sample mc = monte_carlo(s, n, 20000);
    EXPECT_NEAR(mc.mean, slowest_of(s, n).mean, 4 * mc.se) << n;
  }
}

TEST(StragglerOrder, LognormalOneDrawIsTheHalfNormalClosedForm) {
  // E[exp(sigma |z|)] = 2 exp(sigma^2 / 2) Phi(sigma); E[exp(2 sigma |z|)] likewise with 2 sigma.
  // The clamp at 1000 is beyond |z| = 34 at these sigmas: it changes nothing.
  for (double sigma : {0.05, 0.2, 0.5}) {
    const double m1 = 2 * std::exp(sigma * sigma / 2) * normal_cdf(sigma);
    const double m2 = 2 * std::exp(2 * sigma * sigma) * normal_cdf(2 * sigma);
    const FactorMoments m = slowest_of(lognormal(sigma), 1);
    EXPECT_NEAR(m.mean, m1, 1e-10 * m1) << sigma;
    EXPECT_NEAR(m.sd, std::sqrt(m2 - m1 * m1), 1e-8) << sigma;
  }
  EXPECT_EQ(slowest_of(lognormal(0), 4096).mean, 1);
}

TEST(StragglerOrder, LognormalSlowestMatchesSeededMonteCarlo) {
  struct Case {
    double sigma;
    int n, samples;
  };
  // sigma 2 reaches the clamp (1000, |z| > 3.45) in 3.5 % of the maxima of 64 draws.
  for (const Case& c :
       {Case{0.1, 64, 20000}, Case{0.3, 512, 4000}, Case{0.2, 4096, 600}, Case{2.0, 64, 20000}}) {
    const StragglerSpec s = lognormal(c.sigma);
    const FactorMoments m = slowest_of(s, c.n);
    const Sample mc = monte_carlo(s, c.n, c.samples);
    EXPECT_NEAR(mc.mean, m.mean, 4 * mc.se) << "sigma " << c.sigma << ", n " << c.n;
    std::printf(
        "[ order ] lognormal sigma %.1f, slowest of %4d: integral %.6f, Monte Carlo %.6f "
        "+- %.6f (%d samples)\n",
        c.sigma, c.n, m.mean, mc.mean, mc.se, c.samples);
    // The standard error the tolerance uses is itself the sd the integral predicts.
    EXPECT_NEAR(mc.se * std::sqrt(c.samples), m.sd, 0.1 * m.sd) << "sigma " << c.sigma;
  }
}

TEST(StragglerOrder, TheSlowestGrowsWithTheClusterAsExtremeValuesDo) {
  const StragglerSpec s = lognormal(0.2);
  double last = 1;
  for (double n : {1.0, 64.0, 4096.0, 131072.0, 1048576.0}) {
    const double mean = slowest_of(s, n).mean;
    EXPECT_GT(mean, last) << n;
    last = mean;
  }
  // E[max |z| of n] ~ sqrt(2 ln 2n) for large n: exp(0.2 * 5.0) at 131072 GPUs, roughly.
  EXPECT_NEAR(std::log(slowest_of(s, 131072).mean) / 0.2, 4.6, 0.3);
}

TEST(StragglerOrder, TheFoldedSliceKeepsTheMeanFactor) {
  for (const StragglerSpec& s : {uniform(1.5), lognormal(0.2)}) {
    double slowest = 0;
    const double rest = folded_straggler_factors(s, 4096, 512, &slowest);
    EXPECT_DOUBLE_EQ(slowest, slowest_of(s, 4096).mean);
    EXPECT_NEAR((slowest + 511 * rest) / 512, slowest_of(s, 1).mean, 1e-12);
    EXPECT_GT(slowest, rest);
    EXPECT_GE(rest, 1);
  }
}

}  // namespace
}  // namespace ddpsim
