#include "sim/validation/pair_ranking.h"

#include <fmt/format.h>

#include <algorithm>

namespace ddpsim {

PairRanking rank_pairs(const std::vector<CaseRow>& rows, double tie) {
  PairRanking out;
  for (size_t i = 0; i < rows.size(); ++i) {
    const CaseRow& a = rows[i];
    if (a.status != "ok" || a.c.compare.empty()) continue;
    for (size_t j = i + 1; j < rows.size(); ++j) {
      const CaseRow& b = rows[j];
      if (b.status != "ok" || b.c.compare != a.c.compare || b.c.metric != a.c.metric) continue;
      RankedPair p{a.c.compare, a.c.id, b.c.id, a.c.measured / b.c.measured,
                   a.predicted / b.predicted};
      const double low = std::min(a.c.measured, b.c.measured);
      p.tie = std::abs(a.c.measured - b.c.measured) < tie * low;
      if (p.tie) {
        ++out.ties;
      } else {
        p.correct = (p.measured_ratio > 1) == (p.predicted_ratio > 1);
        ++out.scored;
        out.correct += p.correct;
      }
      out.pairs.push_back(p);
    }
  }
  return out;
}

std::string format_pair_ranking(const PairRanking& r) {
  if (r.pairs.empty()) return "strategy pairs: none (no cases share a compare label)\n";
  std::string out = fmt::format(
      "strategy pairs: {} of {} ordered as measured ({:.0f} %), {} tie{} (published values "
      "within 2 %, not scored)\n",
      r.correct, r.scored, r.accuracy_percent(), r.ties, r.ties == 1 ? "" : "s");
  for (const RankedPair& p : r.pairs)
    out += fmt::format("  {:<34} {:<30} vs {:<30} measured {:5.3f}  predicted {:5.3f}  {}\n",
                       p.compare, p.first, p.second, p.measured_ratio, p.predicted_ratio,
                       p.tie ? "tie" : (p.correct ? "ok" : "WRONG"));
  return out;
}

}  // namespace ddpsim
