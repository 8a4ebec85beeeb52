#include "sim/measurements/alpha_beta_fit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/measurements/calibration_profile.h"

namespace ddpsim {

namespace {

// One range's fit and how well it matches its own points.
struct RangeFit {
  AlphaBetaPoint line;
  double sse = 0;      // sum of squared relative errors
  double max_abs = 0;  // largest |relative error|
};

RangeFit fit_range(const std::vector<double>& bytes, const std::vector<double>& seconds,
                   size_t first, size_t last) {
  RangeFit r;
  r.line = fit_alpha_beta_line(bytes, seconds, first, last);
  for (size_t i = first; i < last; ++i) {
    const double e = (r.line.alpha + r.line.beta * bytes[i] - seconds[i]) / seconds[i];
    r.sse += e * e;
    r.max_abs = std::max(r.max_abs, std::abs(e));
  }
  return r;
}

// A best split of points [0, j): number of ranges, total SSE, and where the last range starts.
struct Split {
  int ranges = std::numeric_limits<int>::max();
  double sse = std::numeric_limits<double>::infinity();
  size_t last_start = 0;
  bool reachable = false;
};

// Lawson-Hanson NNLS on a small dense problem (a handful of columns).
Eigen::VectorXd nnls(const Eigen::MatrixXd& a, const Eigen::VectorXd& b) {
  const Eigen::Index n = a.cols();
  Eigen::VectorXd x = Eigen::VectorXd::Zero(n);
  std::vector<bool> passive(static_cast<size_t>(n), false);
  const double tol = 1e-12 * std::max(1.0, a.norm() * b.norm());
  auto solve_passive = [&]() {
    std::vector<Eigen::Index> cols;
    for (Eigen::Index j = 0; j < n; ++j)
      if (passive[static_cast<size_t>(j)]) cols.push_back(j);
    Eigen::MatrixXd ap(a.rows(), static_cast<Eigen::Index>(cols.size()));
    for (size_t c = 0; c < cols.size(); ++c) ap.col(static_cast<Eigen::Index>(c)) = a.col(cols[c]);
    const Eigen::VectorXd zp = ap.colPivHouseholderQr().solve(b);
    Eigen::VectorXd z = Eigen::VectorXd::Zero(n);
    for (size_t c = 0; c < cols.size(); ++c) z(cols[c]) = zp(static_cast<Eigen::Index>(c));
    return z;
  };
  for (int outer = 0; outer < 3 * n + 10; ++outer) {
    const Eigen::VectorXd w = a.transpose() * (b - a * x);
    Eigen::Index best = -1;
    for (Eigen::Index j = 0; j < n; ++j)
      if (!passive[static_cast<size_t>(j)] && w(j) > tol && (best < 0 || w(j) > w(best))) best = j;
    if (best < 0) break;
    passive[static_cast<size_t>(best)] = true;
    for (int inner = 0; inner < 3 * n + 10; ++inner) {
      const Eigen::VectorXd z = solve_passive();
      bool feasible = true;
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[static_cast<size_t>(j)] && z(j) <= 0) feasible = false;
      if (feasible) {
        x = z;
        break;
      }
      double step = 1;
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[static_cast<size_t>(j)] && z(j) <= 0)
          step = std::min(step, x(j) / (x(j) - z(j)));
      x += step * (z - x);
      for (Eigen::Index j = 0; j < n; ++j)
        if (passive[static_cast<size_t>(j)] && x(j) <= tol) {
          passive[static_cast<size_t>(j)] = false;
          x(j) = 0;
        }
    }
  }
  return x;
}

// A continuous, non-decreasing curve with boundaries `knots` (k_1 < k_2 < ...): its ranges and
// the sum of squared relative errors over all points.
struct ContinuousFit {
  std::vector<AlphaBetaPoint> ranges;
  double sse = std::numeric_limits<double>::infinity();
  double max_abs = std::numeric_limits<double>::infinity();
};

ContinuousFit fit_continuous(const std::vector<double>& bytes, const std::vector<double>& seconds,
                             const std::vector<double>& knots) {
  const Eigen::Index n = static_cast<Eigen::Index>(bytes.size());
  const Eigen::Index m = static_cast<Eigen::Index>(knots.size()) + 1;  // ranges
  std::vector<double> k = {0};
  k.insert(k.end(), knots.begin(), knots.end());
  k.push_back(std::numeric_limits<double>::infinity());
  // Column 0: the latency a; column 1 + i: the length of range i below S. Rows are divided by
  // the measured time (relative errors), columns scaled to unit norm (S spans 10 decades).
  Eigen::MatrixXd a(n, m + 1);
  for (Eigen::Index j = 0; j < n; ++j) {
    const double s = bytes[static_cast<size_t>(j)], t = seconds[static_cast<size_t>(j)];
    a(j, 0) = 1 / t;
    for (Eigen::Index i = 0; i < m; ++i) {
      const double lo = k[static_cast<size_t>(i)], hi = k[static_cast<size_t>(i) + 1];
      a(j, 1 + i) = std::max(0.0, std::min(s, hi) - lo) / t;
    }
  }
  Eigen::VectorXd scale(m + 1);
  for (Eigen::Index c = 0; c <= m; ++c) {
    scale(c) = a.col(c).norm();
    if (scale(c) > 0) a.col(c) /= scale(c);
  }
  const Eigen::VectorXd x = nnls(a, Eigen::VectorXd::Ones(n));
  ContinuousFit fit;
  double start_time = scale(0) > 0 ? x(0) / scale(0) : 0;  // t at the start of range i
  for (Eigen::Index i = 0; i < m; ++i) {
    const double beta = scale(1 + i) > 0 ? x(1 + i) / scale(1 + i) : 0;
    const double lo = k[static_cast<size_t>(i)], hi = k[static_cast<size_t>(i) + 1];
    fit.ranges.push_back({lo, hi, start_time - beta * lo, beta});
    if (std::isfinite(hi)) start_time += beta * (hi - lo);
  }
  fit.sse = 0;
  fit.max_abs = 0;
  for (size_t j = 0; j < bytes.size(); ++j) {
    const double e = (alpha_beta_predict(fit.ranges, bytes[j]) - seconds[j]) / seconds[j];
    fit.sse += e * e;
    fit.max_abs = std::max(fit.max_abs, std::abs(e));
  }
  return fit;
}

// The continuous fit of a partition (range r holds points [starts[r], starts[r+1])): boundary r
// lies in the gap between the last point of range r-1 and the first of range r. It starts where
// the two ranges' own lines cross (the geometric mean of the gap when they do not cross inside
// it) and each boundary is then moved to its best place by golden-section search on log(size).
ContinuousFit fit_partition(const std::vector<double>& bytes, const std::vector<double>& seconds,
                            const std::vector<size_t>& starts) {
  const size_t n = bytes.size();
  std::vector<double> knots, lo, hi;
  for (size_t r = 1; r < starts.size(); ++r) {
    const size_t s = starts[r];
    const size_t next = r + 1 < starts.size() ? starts[r + 1] : n;
    lo.push_back(bytes[s - 1]);
    hi.push_back(bytes[s]);
    const AlphaBetaPoint a = fit_alpha_beta_line(bytes, seconds, starts[r - 1], s);
    const AlphaBetaPoint b = fit_alpha_beta_line(bytes, seconds, s, next);
    const double cross = a.beta != b.beta ? (b.alpha - a.alpha) / (a.beta - b.beta) : 0;
    knots.push_back(cross > lo.back() && cross < hi.back() ? cross
                                                           : std::sqrt(lo.back() * hi.back()));
  }
  ContinuousFit best = fit_continuous(bytes, seconds, knots);
  constexpr double kGolden = 0.6180339887498949;
  for (int pass = 0; pass < 2; ++pass) {
    for (size_t i = 0; i < knots.size(); ++i) {
      auto sse_at = [&](double log_knot) {
        std::vector<double> trial = knots;
        trial[i] = std::exp(log_knot);
        return fit_continuous(bytes, seconds, trial).sse;
      };
      double a = std::log(lo[i]), b = std::log(hi[i]);
      double c = b - kGolden * (b - a), d = a + kGolden * (b - a);
      double fc = sse_at(c), fd = sse_at(d);
      for (int it = 0; it < 40 && b - a > 1e-9; ++it) {
        if (fc < fd) {
          b = d, d = c, fd = fc;
          c = b - kGolden * (b - a), fc = sse_at(c);
        } else {
          a = c, c = d, fc = fd;
          d = a + kGolden * (b - a), fd = sse_at(d);
        }
      }
      std::vector<double> trial = knots;
      trial[i] = std::exp(fc < fd ? c : d);
      ContinuousFit candidate = fit_continuous(bytes, seconds, trial);
      if (candidate.sse < best.sse) {
        best = std::move(candidate);
        knots = trial;
      }
    }
  }
  return best;
}

}  // namespace

AlphaBetaPoint fit_alpha_beta_line(const std::vector<double>& bytes,
                                   const std::vector<double>& seconds, size_t first, size_t last) {
  const Eigen::Index n = static_cast<Eigen::Index>(last - first);
  // Rows (1/t, S/t) . (alpha, beta) = 1 are the relative errors; columns are scaled to unit norm
  // first because S/t spans twenty orders of magnitude more than 1/t.
  Eigen::MatrixXd a(n, 2);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    a(i, 0) = 1.0 / seconds[first + i];
    a(i, 1) = bytes[first + i] / seconds[first + i];
  }
  const Eigen::Vector2d scale(a.col(0).norm(), a.col(1).norm());
  AlphaBetaPoint p;
  if (n >= 2) {
    Eigen::MatrixXd scaled = a;
    scaled.col(0) /= scale(0);
    scaled.col(1) /= scale(1);
    Eigen::Vector2d x = scaled.colPivHouseholderQr().solve(b);
    p.alpha = x(0) / scale(0);
    p.beta = x(1) / scale(1);
  }
  // A negative term has no physical meaning: drop it and fit the other alone (1-D least squares).
  if (n < 2 || p.alpha < 0 || p.beta < 0) {
    const double beta_only = a.col(1).sum() / a.col(1).squaredNorm();
    const double alpha_only = a.col(0).sum() / a.col(0).squaredNorm();
    const double err_beta = (a.col(1) * beta_only - b).squaredNorm();
    const double err_alpha = (a.col(0) * alpha_only - b).squaredNorm();
    if (n >= 2 && p.alpha < 0 && p.beta >= 0) {
      p = AlphaBetaPoint{0, 0, 0, beta_only};
    } else if (n >= 2 && p.beta < 0 && p.alpha >= 0) {
      p = AlphaBetaPoint{0, 0, alpha_only, 0};
    } else {
      p = err_beta < err_alpha ? AlphaBetaPoint{0, 0, 0, beta_only}
                               : AlphaBetaPoint{0, 0, alpha_only, 0};
    }
  }
  return p;
}

AlphaBetaFit fit_alpha_beta(const std::vector<double>& bytes, const std::vector<double>& seconds,
                            const AlphaBetaFitOptions& options) {
  const size_t n = bytes.size();
  if (n != seconds.size()) throw std::invalid_argument("fit_alpha_beta: sizes and times differ");
  if (n < 2) throw std::invalid_argument("fit_alpha_beta: need at least 2 points");
  for (size_t i = 0; i < n; ++i) {
    if (!(bytes[i] > 0) || !(seconds[i] > 0) || !std::isfinite(bytes[i]) ||
        !std::isfinite(seconds[i]))
      throw std::invalid_argument("fit_alpha_beta: sizes and times must be finite and > 0");
    if (i > 0 && !(bytes[i] > bytes[i - 1]))
      throw std::invalid_argument("fit_alpha_beta: sizes must be strictly increasing");
  }
  const size_t min_points = std::max<size_t>(1, std::min<size_t>(options.min_points, n));
  const int kmax = std::max(1, options.max_ranges);

  // Partitions proposed by independent lines: every candidate range [i, j) is fitted once (n is
  // a few dozen sizes at most), then best[k][j] is the least-SSE split of [0, j) into k ranges.
  std::vector<std::vector<RangeFit>> range(n + 1, std::vector<RangeFit>(n + 1));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + min_points; j <= n; ++j) range[i][j] = fit_range(bytes, seconds, i, j);
  std::vector<std::vector<Split>> best(kmax + 1, std::vector<Split>(n + 1));
  best[0][0] = Split{0, 0, 0, true};
  for (int k = 1; k <= kmax; ++k)
    for (size_t j = min_points; j <= n; ++j)
      for (size_t i = 0; i + min_points <= j; ++i) {
        if (!best[k - 1][i].reachable) continue;
        const double sse = best[k - 1][i].sse + range[i][j].sse;
        if (sse < best[k][j].sse) best[k][j] = Split{k, sse, i, true};
      }

  // Each proposal, made continuous: the fewest ranges within tolerance win, else the least SSE.
  ContinuousFit chosen;
  int chosen_ranges = 0;
  bool chosen_within = false;
  for (int k = 1; k <= kmax; ++k) {
    if (!best[k][n].reachable) continue;
    std::vector<size_t> starts;
    for (size_t j = n, kk = k; j > 0; j = best[kk][j].last_start, --kk)
      starts.push_back(best[kk][j].last_start);
    std::reverse(starts.begin(), starts.end());
    ContinuousFit fit = fit_partition(bytes, seconds, starts);
    const bool within = fit.max_abs <= options.tolerance;
    if (chosen_within && !within) continue;
    if ((within && !chosen_within) || fit.sse < chosen.sse) {
      chosen = std::move(fit);
      chosen_ranges = k;
      chosen_within = within;
    }
    if (chosen_within && chosen_ranges == k) break;  // fewer ranges cannot be beaten now
  }

  AlphaBetaFit fit;
  fit.ranges = std::move(chosen.ranges);
  for (size_t i = 0; i < n; ++i) {
    const double e = (alpha_beta_predict(fit.ranges, bytes[i]) - seconds[i]) / seconds[i];
    fit.rel_error.push_back(e);
    fit.max_abs_rel_error = std::max(fit.max_abs_rel_error, std::abs(e));
  }
  return fit;
}

std::vector<double> non_negative_least_squares(const std::vector<std::vector<double>>& a,
                                               const std::vector<double>& b) {
  const Eigen::Index rows = static_cast<Eigen::Index>(a.size());
  const Eigen::Index cols = rows > 0 ? static_cast<Eigen::Index>(a[0].size()) : 0;
  Eigen::MatrixXd m(rows, cols);
  Eigen::VectorXd v(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    for (Eigen::Index j = 0; j < cols; ++j)
      m(i, j) = a[static_cast<size_t>(i)][static_cast<size_t>(j)];
    v(i) = b[static_cast<size_t>(i)];
  }
  const Eigen::VectorXd x = nnls(m, v);
  return std::vector<double>(x.data(), x.data() + x.size());
}

}  // namespace ddpsim
