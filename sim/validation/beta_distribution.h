// The regularised incomplete beta function and the two quantiles built on it that score bands:
// Student's t (prediction intervals from few residuals, discrepancy.h) and the Clopper-Pearson
// interval of a coverage share (validate --uncertainty). Continued fraction of Numerical
// Recipes' betacf (Lentz's method), converged to 1e-14; quantiles by bisection to 1e-12.
#pragma once

namespace ddpsim {

// I_x(a, b) for a, b > 0 and x in [0, 1].
double incomplete_beta(double a, double b, double x);

// The x with I_x(a, b) = p.
double beta_quantile(double a, double b, double p);

// Student's t quantile for q in (0, 1) and nu >= 1 degrees of freedom.
double student_t_quantile(double q, int nu);

// The exact (Clopper-Pearson) two-sided interval of a binomial share: k successes of n, at
// `confidence` (0.95: each tail 2.5 %). Shares in [0, 1]; n = 0 gives [0, 1].
struct ShareInterval {
  double low = 0, high = 1;
};
ShareInterval clopper_pearson(int k, int n, double confidence = 0.95);

}  // namespace ddpsim
