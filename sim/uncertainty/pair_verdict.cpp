#include "sim/uncertainty/pair_verdict.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/validation/beta_distribution.h"
#include "sim/validation/error_stats.h"

namespace ddpsim {
namespace {

const std::vector<double> kNoError = {0.0};

const std::vector<double>& offsets(const Discrepancy& d) {
  return d.known() ? d.offsets : kNoError;
}

}  // namespace

double PairVerdict::log_gap() const { return ratio_p50 > 0 ? std::abs(std::log(ratio_p50)) : 0; }

PairVerdict judge_pair(const std::vector<double>& a, const Discrepancy& da,
                       const std::vector<double>& b, const Discrepancy& db, bool shared) {
  PairVerdict v;
  const size_t n = std::min(a.size(), b.size());
  v.draws = static_cast<int>(n);
  v.resolution = std::max(da.resolution, db.resolution);
  const std::vector<double>& oa = offsets(da);
  const std::vector<double>& ob = offsets(db);
  std::vector<double> ratios;          // a / b in every world
  double a_share = 0, b_share = 0;     // summed per draw, each draw weighing the same
  for (size_t k = 0; k < n; ++k) {
    int a_wins = 0, b_wins = 0, worlds = 0;
    auto world = [&](double ea, double eb) {
      const double x = a[k] * std::exp(ea), y = b[k] * std::exp(eb);
      ratios.push_back(y > 0 ? x / y : 0);
      a_wins += x > y;
      b_wins += y > x;
      ++worlds;
    };
    if (shared && oa.size() == ob.size()) {
      for (size_t j = 0; j < oa.size(); ++j) world(oa[j], ob[j]);
    } else {
      for (double ea : oa)
        for (double eb : ob) world(ea, eb);
    }
    a_share += static_cast<double>(a_wins) / worlds;
    b_share += static_cast<double>(b_wins) / worlds;
  }
  if (n == 0 || (a_share == 0 && b_share == 0)) {
    v.tie = true;
    v.leader = 0;
    v.other = 1;
    return v;
  }
  const bool a_leads = a_share >= b_share;
  v.leader = a_leads ? 0 : 1;
  v.other = a_leads ? 1 : 0;
  v.share = (a_leads ? a_share : b_share) / n;
  if (!a_leads)
    for (double& r : ratios) r = r > 0 ? 1 / r : 0;
  v.ratio_p10 = percentile(ratios, 0.1);
  v.ratio_p50 = percentile(ratios, 0.5);
  v.ratio_p90 = percentile(ratios, 0.9);
  // The draws are the independent units: the share's error is that of a binomial share over
  // them (the model-error quantiles within a draw are fixed points, not samples).
  const int wins = static_cast<int>(std::lround(v.share * n));
  const int total = static_cast<int>(n);
  v.share_low = wins == 0 ? 0 : beta_quantile(wins, total - wins + 1, 0.05);
  v.share_high = wins == total ? 1 : beta_quantile(wins + 1, total - wins, 0.95);
  return v;
}

int supported_winner(const std::vector<PairVerdict>& pairs, const std::vector<double>& headlines,
                     const std::vector<bool>& eligible, bool* leads_every_pair) {
  const size_t cells = headlines.size();
  std::vector<int> leads(cells, 0), played(cells, 0);
  for (const PairVerdict& p : pairs) {
    ++played[p.leader];
    ++played[p.other];
    if (!p.tie) ++leads[p.leader];
  }
  int best = -1;
  for (size_t c = 0; c < cells; ++c) {
    if (!eligible[c]) continue;
    if (best < 0 || leads[c] > leads[best] ||
        (leads[c] == leads[best] && headlines[c] > headlines[best]))
      best = static_cast<int>(c);
  }
  if (leads_every_pair != nullptr)
    *leads_every_pair = best >= 0 && leads[best] == played[best];
  return best;
}

std::string format_ratio(const PairVerdict& v) {
  return fmt::format("x{:.3f} (p10-p90 {:.3f}-{:.3f})", v.ratio_p50, v.ratio_p10, v.ratio_p90);
}

}  // namespace ddpsim
