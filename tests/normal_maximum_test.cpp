// z(n), the expected largest of n standard normal draws (sim/cost/normal_maximum.h), against
// values known independently: closed forms for n = 2, 3 (1/sqrt(pi), 3/(2 sqrt(pi))), and a
// 30-digit adaptive quadrature (mpmath 1.3, the same integral) for the others; its growth,
// monotonic in n and below the bound sqrt(2 ln n); and its refusals.
#include "sim/cost/normal_maximum.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

namespace ddpsim {
namespace {

const double kPi = std::acos(-1.0);

TEST(NormalMaximum, ClosedFormsAndReferenceValues) {
  EXPECT_EQ(expected_normal_maximum(1), 0.0);
  EXPECT_NEAR(expected_normal_maximum(2), 1 / std::sqrt(kPi), 1e-12);
  EXPECT_NEAR(expected_normal_maximum(3), 1.5 / std::sqrt(kPi), 1e-12);
  // mpmath.quad of the integral over [0, inf) of 1 - Phi(t)^n - Phi(-t)^n at 30 digits.
  struct Reference {
    double n, z;
  };
  for (const Reference& r : {Reference{4, 1.02937537300396}, Reference{5, 1.16296447364052},
                             Reference{8, 1.42360030604528}, Reference{16, 1.76599139305479},
                             Reference{64, 2.34373346507944}, Reference{100, 2.50759363644168},
                             Reference{1000, 3.24143576913344}, Reference{1024, 3.24823960137541},
                             Reference{16384, 3.97135057028064}, Reference{1e6, 4.86289748619646}})
    EXPECT_NEAR(expected_normal_maximum(r.n), r.z, 1e-12) << r.n;
}

TEST(NormalMaximum, GrowsWithNAndStaysBelowTheSqrtTwoLogBound) {
  double previous = expected_normal_maximum(1);
  for (double n = 2; n <= 1e9; n *= 1.5) {
    const double z = expected_normal_maximum(n);
    EXPECT_GT(z, previous) << n;
    EXPECT_LT(z, std::sqrt(2 * std::log(n))) << n;
    previous = z;
  }
  EXPECT_GT(expected_normal_maximum(1e9), expected_normal_maximum(1e6));
}

TEST(NormalMaximum, RefusesFewerThanOneDrawOrTooMany) {
  EXPECT_THROW(expected_normal_maximum(0.5), std::invalid_argument);
  EXPECT_THROW(expected_normal_maximum(0), std::invalid_argument);
  EXPECT_THROW(expected_normal_maximum(2e9), std::invalid_argument);
  EXPECT_THROW(expected_normal_maximum(std::nan("")), std::invalid_argument);
}

}  // namespace
}  // namespace ddpsim
