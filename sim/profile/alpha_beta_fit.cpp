#include "sim/profile/alpha_beta_fit.h"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

#include "sim/profile/calibration_profile.h"

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

std::vector<size_t> starts_from(const std::vector<Split>& best, size_t n) {
  std::vector<size_t> starts;
  for (size_t j = n; j > 0; j = best[j].last_start) starts.push_back(best[j].last_start);
  std::reverse(starts.begin(), starts.end());
  return starts;
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

  // Every candidate range [i, j) is fitted once; n is a few dozen sizes at most.
  std::vector<std::vector<RangeFit>> range(n + 1, std::vector<RangeFit>(n + 1));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = i + min_points; j <= n; ++j) range[i][j] = fit_range(bytes, seconds, i, j);

  // Fewest ranges within tolerance, then least SSE.
  std::vector<Split> within(n + 1);
  within[0] = Split{0, 0, 0, true};
  for (size_t j = min_points; j <= n; ++j) {
    for (size_t i = 0; i + min_points <= j; ++i) {
      if (!within[i].reachable || range[i][j].max_abs > options.tolerance) continue;
      const int count = within[i].ranges + 1;
      const double sse = within[i].sse + range[i][j].sse;
      if (count < within[j].ranges || (count == within[j].ranges && sse < within[j].sse))
        within[j] = Split{count, sse, i, true};
    }
  }
  std::vector<size_t> starts;
  if (within[n].reachable && within[n].ranges <= options.max_ranges) {
    starts = starts_from(within, n);
  } else {
    // Least SSE with at most max_ranges ranges: best[k][j] over k ranges covering [0, j).
    const int kmax = std::max(1, options.max_ranges);
    std::vector<std::vector<Split>> best(kmax + 1, std::vector<Split>(n + 1));
    best[0][0] = Split{0, 0, 0, true};
    for (int k = 1; k <= kmax; ++k)
      for (size_t j = min_points; j <= n; ++j)
        for (size_t i = 0; i + min_points <= j; ++i) {
          if (!best[k - 1][i].reachable) continue;
          const double sse = best[k - 1][i].sse + range[i][j].sse;
          if (sse < best[k][j].sse) best[k][j] = Split{k, sse, i, true};
        }
    int k_best = 1;
    for (int k = 1; k <= kmax; ++k)
      if (best[k][n].reachable && best[k][n].sse < best[k_best][n].sse) k_best = k;
    for (size_t j = n, k = k_best; j > 0; j = best[k][j].last_start, --k)
      starts.push_back(best[k][j].last_start);
    std::reverse(starts.begin(), starts.end());
  }

  AlphaBetaFit fit;
  for (size_t r = 0; r < starts.size(); ++r) {
    const size_t first = starts[r];
    const size_t last = r + 1 < starts.size() ? starts[r + 1] : n;
    AlphaBetaPoint line = range[first][last].line;
    line.min_bytes = r == 0 ? 0 : std::sqrt(bytes[first - 1] * bytes[first]);
    line.max_bytes = last == n ? std::numeric_limits<double>::infinity()
                               : std::sqrt(bytes[last - 1] * bytes[last]);
    fit.ranges.push_back(line);
  }
  for (size_t i = 0; i < n; ++i) {
    const double e = (alpha_beta_predict(fit.ranges, bytes[i]) - seconds[i]) / seconds[i];
    fit.rel_error.push_back(e);
    fit.max_abs_rel_error = std::max(fit.max_abs_rel_error, std::abs(e));
  }
  return fit;
}

}  // namespace ddpsim
