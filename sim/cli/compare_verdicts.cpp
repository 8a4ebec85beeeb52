#include "sim/cli/compare_verdicts.h"

#include <fmt/format.h>

#include <cmath>

#include "sim/uncertainty/uncertainty.h"  // rank_correlation

namespace ddpsim::cli {

PairVerdict judge_cells(const Cell& a, const Cell& b) {
  return judge_pair(anchored_draws(a.draws, a.error, a.samples_per_second), a.error,
                    anchored_draws(b.draws, b.error, b.samples_per_second), b.error,
                    a.mechanism == b.mechanism);
}

RowVerdicts judge_row(const std::vector<Cell>& cells, bool uncertain) {
  RowVerdicts v;
  std::vector<double> headlines;
  std::vector<bool> eligible;
  for (const Cell& cell : cells) {
    headlines.push_back(uncertain ? cell.band.p50 : cell.samples_per_second);
    eligible.push_back(cell.fits);
  }
  if (!uncertain) {
    for (size_t k = 0; k < cells.size(); ++k)
      if (eligible[k] && (v.star < 0 || headlines[k] > headlines[v.star])) {
        v.star = static_cast<int>(k);
        v.best = headlines[k];
      }
    return v;
  }
  for (size_t a = 0; a < cells.size(); ++a)
    for (size_t b = a + 1; b < cells.size(); ++b) {
      if (!compared(cells[a], cells[b])) continue;
      PairVerdict p = judge_cells(cells[a], cells[b]);
      p.leader = p.leader == 0 ? a : b;
      p.other = p.other == 0 ? a : b;
      v.cells.emplace_back(a, b);
      v.pairs.push_back(p);
    }
  v.star = supported_winner(v.pairs, headlines, eligible, &v.leads_every_pair);
  return v;
}

namespace {

std::string undecided(const Cell& leader, const Cell& other,
                      const std::vector<const AssumptionRow*>& defaulted,
                      const std::vector<std::vector<double>>& design) {
  std::vector<double> difference;
  for (size_t d = 0; d < design.size(); ++d) difference.push_back(leader.draws[d] - other.draws[d]);
  const AssumptionRow* deciding = nullptr;
  double strongest = 0;
  for (const AssumptionRow* row : defaulted) {
    std::vector<double> x;
    const size_t column = static_cast<size_t>(row - assumption_rows().data());
    for (const std::vector<double>& u : design) x.push_back(u[column]);
    const double r = std::abs(rank_correlation(x, difference));
    if (r > strongest) {
      strongest = r;
      deciding = row;
    }
  }
  if (deciding == nullptr) return "undecided: the model's own error decides it; measure both";
  return fmt::format("undecided: deciding input {} (rank correlation {:.2f}); measure {}",
                     deciding->label, strongest, deciding->measure);
}

}  // namespace

std::string format_row_verdicts(const RowVerdicts& v, const std::vector<Cell>& cells,
                                const std::vector<std::string>& strategies,
                                const std::vector<const AssumptionRow*>& defaulted,
                                const std::vector<std::vector<double>>& design) {
  std::string out;
  for (size_t i = 0; i < v.pairs.size(); ++i) {
    const PairVerdict& p = v.pairs[i];
    if (p.tie) {
      out += fmt::format("  {} and {}: the same throughput in every world\n",
                         strategies[v.cells[i].first], strategies[v.cells[i].second]);
      continue;
    }
    const Cell& leader = cells[p.leader];
    const Cell& other = cells[p.other];
    std::string verdict;
    if (p.decided()) {
      verdict = "decided";
    } else if (p.share_low >= kDecidedShare) {
      verdict = fmt::format(
          "too close to call: the gap {:.1f} % is within the model's resolution of {:.1f} % ({})",
          100 * (p.ratio_p50 - 1), 100 * (std::exp(p.resolution) - 1),
          leader.mechanism == other.mechanism
              ? leader.mechanism.name()
              : leader.mechanism.name() + ", " + other.mechanism.name());
    } else {
      verdict = undecided(leader, other, defaulted, design);
    }
    out += fmt::format("  {} faster than {} in {:.0f} % of worlds ({} draws), {}: {}\n",
                       strategies[p.leader], strategies[p.other], 100 * p.share, p.draws,
                       format_ratio(p), verdict);
  }
  if (v.star >= 0 && !v.pairs.empty() && !v.leads_every_pair)
    out += fmt::format("  no strategy leads every pair: * marks the one that leads most ({})\n",
                       strategies[v.star]);
  return out;
}

}  // namespace ddpsim::cli
