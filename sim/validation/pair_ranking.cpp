#include "sim/validation/pair_ranking.h"

#include <fmt/format.h>

#include <algorithm>

namespace ddpsim {

std::string pair_kind(const std::string& compare) {
  const size_t at = compare.rfind(": ");
  return at == std::string::npos ? compare : compare.substr(at + 2);
}

PairRanking rank_pairs(const std::vector<CaseRow>& rows, double tie) {
  PairRanking out;
  auto count_for = [&out](const std::string& kind) -> PairCount& {
    for (PairCount& k : out.kinds)
      if (k.kind == kind) return k;
    out.kinds.push_back(PairCount{kind});
    return out.kinds.back();
  };
  for (size_t i = 0; i < rows.size(); ++i) {
    const CaseRow& a = rows[i];
    if (a.status != "ok" || a.c.compare.empty()) continue;
    for (size_t j = i + 1; j < rows.size(); ++j) {
      const CaseRow& b = rows[j];
      if (b.status != "ok" || b.c.compare != a.c.compare || b.c.metric != a.c.metric) continue;
      RankedPair p{a.c.compare,
                   a.c.id,
                   b.c.id,
                   pair_kind(a.c.compare),
                   a.c.measured / b.c.measured,
                   a.predicted / b.predicted};
      const double low = std::min(a.c.measured, b.c.measured);
      p.tie = std::abs(a.c.measured - b.c.measured) < tie * low;
      PairCount& kind = count_for(p.kind);
      if (p.tie) {
        ++out.ties;
        ++kind.ties;
      } else {
        p.correct = (p.measured_ratio > 1) == (p.predicted_ratio > 1);
        ++out.scored;
        out.correct += p.correct;
        ++kind.scored;
        kind.correct += p.correct;
      }
      out.pairs.push_back(p);
    }
  }
  return out;
}

namespace {

std::string counts(int correct, int scored, int ties) {
  std::string out = scored ? fmt::format("{} of {} ordered as measured ({:.0f} %)", correct, scored,
                                         100.0 * correct / scored)
                           : std::string("none scored");
  return out + fmt::format(", {} tie{}", ties, ties == 1 ? "" : "s");
}

}  // namespace

std::string format_pair_ranking(const PairRanking& r) {
  if (r.pairs.empty()) return "pairs of alternatives: none (no cases share a compare label)\n";
  std::string out = fmt::format(
      "pairs of alternatives (cases sharing a compare label: one job run two ways): {} "
      "(published values within 2 %, not scored)\n",
      counts(r.correct, r.scored, r.ties));
  for (const PairCount& k : r.kinds)
    out += fmt::format("  {:<52} {}\n", k.kind, counts(k.correct, k.scored, k.ties));
  for (const RankedPair& p : r.pairs)
    out += fmt::format("  {:<30} vs {:<30} measured {:5.3f}  predicted {:5.3f}  {:<5}  ({})\n",
                       p.first, p.second, p.measured_ratio, p.predicted_ratio,
                       p.tie ? "tie" : (p.correct ? "ok" : "WRONG"), p.compare);
  return out;
}

std::string pair_ranking_brief(const PairRanking& r) {
  if (r.pairs.empty()) return "pairs: none to score";
  std::string out = "pairs: " + counts(r.correct, r.scored, r.ties);
  for (const PairCount& k : r.kinds)
    out += fmt::format("; {}: {} of {}", k.kind, k.correct, k.scored);
  return out;
}

}  // namespace ddpsim
