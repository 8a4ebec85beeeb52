#include "sim/validation/discrepancy.h"

#include <fmt/format.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <tuple>

#include "sim/text/input_error.h"
#include "sim/validation/beta_distribution.h"
#include "sim/validation/error_stats.h"

namespace ddpsim {
namespace {

constexpr int kOffsets = 20;  // quantile points of the discrepancy: 2.5 %, 7.5 %, ... 97.5 %
// The draws never explain more than three quarters of the residuals' variance: a scenario with
// nothing left to draw (every input stated or measured) keeps at least half the model's spread.
constexpr double kLeastScale = 0.5;

const char* kHeader =
    "case,source,binds,sync,transport,intra_node,generation,gpus,measured,median,nominal,"
    "residual,nominal_residual,draw_spread";

template <class Pred>
std::vector<const ResidualRow*> select(const std::vector<const ResidualRow*>& rows, Pred keep) {
  std::vector<const ResidualRow*> out;
  for (const ResidualRow* r : rows)
    if (keep(*r)) out.push_back(r);
  return out;
}

}  // namespace

double robust_spread(const std::vector<double>& values) {
  if (values.size() < 2) return 0;
  return (percentile(values, 0.9) - percentile(values, 0.1)) / (2 * kZ90);
}

Discrepancy estimate_discrepancy(const std::vector<ResidualRow>& all,
                                 const MechanismClass& mechanism, const SupportFeatures& support,
                                 const std::string& exclude_source) {
  Discrepancy d;
  d.mechanism = mechanism;
  std::vector<const ResidualRow*> pool;
  for (const ResidualRow& r : all)
    if (exclude_source.empty() || r.source != exclude_source) pool.push_back(&r);
  if (pool.empty()) return d;

  auto none_has = [&](auto same) {
    return std::none_of(pool.begin(), pool.end(), [&](const ResidualRow* r) { return same(*r); });
  };
  if (none_has([&](const ResidualRow& r) { return r.support.transport == support.transport; }))
    d.distance.push_back("no validated case runs over " + support.transport + " between nodes");
  if (none_has([&](const ResidualRow& r) { return r.mechanism.sync == mechanism.sync; }))
    d.distance.push_back("no validated case synchronises by " + mechanism.sync);
  if (none_has([&](const ResidualRow& r) { return r.support.generation == support.generation; }))
    d.distance.push_back(
        fmt::format("no validated case has a GPU of compute capability {}.x", support.generation));
  if (none_has([&](const ResidualRow& r) { return r.support.intra_node == support.intra_node; }))
    d.distance.push_back("no validated case has intra-node " + support.intra_node);

  std::vector<const ResidualRow*> used =
      select(pool, [&](const ResidualRow& r) { return r.mechanism == mechanism; });
  d.pooled = "class";
  const int own = static_cast<int>(used.size());  // the class's own rows
  if (own < kMinClassCases) {
    used = select(pool, [&](const ResidualRow& r) { return r.mechanism.binds == mechanism.binds; });
    d.pooled = "binds";
  }
  if (static_cast<int>(used.size()) < kMinClassCases) {
    used = pool;
    d.pooled = "all";
  }
  int largest = 0;
  for (const ResidualRow* r : used) largest = std::max(largest, r->support.gpus);
  if (support.gpus > kDistanceJobRatio * largest)
    d.distance.push_back(
        fmt::format("{} GPUs, over {:g}x the largest validated job of its kind "
                    "({} GPUs)",
                    support.gpus, kDistanceJobRatio, largest));
  if (!d.distance.empty()) {
    used = pool;
    d.pooled = "all";
  }
  if (own < kMinClassCases)
    d.distance.push_back(fmt::format("its class ({}) has {} validated case{}, fewer than {}",
                                     mechanism.name(), own, own == 1 ? "" : "s", kMinClassCases));
  const bool borrowed = d.pooled != "class";

  std::vector<double> residuals;
  double draw_variance = 0;
  for (const ResidualRow* r : used) {
    residuals.push_back(borrowed ? r->nominal_residual : r->residual);
    draw_variance += r->draw_spread * r->draw_spread;
  }
  d.cases = static_cast<int>(residuals.size());
  if (d.cases < 2) return d;
  draw_variance /= d.cases;
  d.shift = median(residuals);
  d.spread = robust_spread(residuals);
  const double explained =
      d.spread > 0 ? std::min(draw_variance / (d.spread * d.spread), 1.0) : 1.0;
  const double beyond = std::max(std::sqrt(1 - explained), kLeastScale);
  const double n = d.cases;
  const double small_sample = student_t_quantile(0.9, d.cases - 1) / kZ90 * std::sqrt(1 + 1 / n);
  d.scale = beyond * small_sample * (d.distance.empty() ? 1.0 : kDistanceInflation);
  std::vector<double> deviations;
  for (double r : residuals) deviations.push_back(std::abs(r - d.shift));
  d.resolution = median(deviations);
  for (int j = 0; j < kOffsets; ++j) {
    const double q = (j + 0.5) / kOffsets;
    d.offsets.push_back(d.shift + d.scale * (percentile(residuals, q) - d.shift));
  }
  return d;
}

std::vector<double> anchored_draws(const std::vector<double>& values, const Discrepancy& d,
                                   double nominal) {
  if (!d.borrowed() || !(nominal > 0) || values.empty()) return values;
  const double middle = percentile(values, 0.5);
  if (!(middle > 0)) return values;
  std::vector<double> out;
  out.reserve(values.size());
  for (double v : values) out.push_back(v * (nominal / middle));
  return out;
}

std::vector<double> combined_values(const std::vector<double>& values, const Discrepancy& d,
                                    bool rate) {
  std::vector<double> out;
  if (!d.known()) {
    out = values;
  } else {
    out.reserve(values.size() * d.offsets.size());
    for (double v : values)
      for (double o : d.offsets) out.push_back(v * std::exp(rate ? o : -o));
  }
  std::sort(out.begin(), out.end());
  return out;
}

Band combined_band(const std::vector<double>& values, const Discrepancy& d, bool rate) {
  const std::vector<double> all = combined_values(values, d, rate);
  return Band{percentile(all, 0.1), percentile(all, 0.5), percentile(all, 0.9)};
}

std::string format_residual_rows(const std::vector<ResidualRow>& rows) {
  std::string out = std::string(kHeader) + "\n";
  for (const ResidualRow& r : rows)
    out += fmt::format("{},{},{},{},{},{},{},{},{:.6g},{:.6g},{:.6g},{:.6f},{:.6f},{:.6f}\n", r.id,
                       r.source, r.mechanism.binds, r.mechanism.sync, r.support.transport,
                       r.support.intra_node, r.support.generation, r.support.gpus, r.measured,
                       r.median, r.nominal, r.residual, r.nominal_residual, r.draw_spread);
  return out;
}

std::vector<ResidualRow> parse_residual_rows(const std::string& text, const std::string& file) {
  static const std::vector<std::string> kBinds = {"compute", "intra-node", "network-rdma",
                                                  "network-tcp", "data-loading"};
  static const std::vector<std::string> kSync = {"allreduce", "ps", "sharded"};
  static const std::vector<std::string> kTransport = {"rdma", "tcp", "none"};
  static const std::vector<std::string> kIntra = {"nvswitch", "nvlink", "pcie", "none"};
  std::vector<ResidualRow> rows;
  size_t at = 0;
  int line = 0;
  while (at < text.size()) {
    size_t end = text.find('\n', at);
    if (end == std::string::npos) end = text.size();
    const std::string l = text.substr(at, end - at);
    at = end + 1;
    ++line;
    if (line == 1) {
      if (l != kHeader)
        throw InputError({file, 1, 1}, std::string("the first line must be the header ") + kHeader);
      continue;
    }
    if (l.empty()) continue;
    std::vector<std::string> f;
    std::vector<int> column;
    for (size_t s = 0;;) {
      const size_t comma = l.find(',', s);
      column.push_back(static_cast<int>(s) + 1);
      f.push_back(l.substr(s, comma == std::string::npos ? std::string::npos : comma - s));
      if (comma == std::string::npos) break;
      s = comma + 1;
    }
    if (f.size() != 14)
      throw InputError({file, line, 1},
                       fmt::format("{} fields where the header has 14 ({})", f.size(), kHeader));
    auto one_of = [&](int i, const std::vector<std::string>& allowed, const char* what) {
      if (std::find(allowed.begin(), allowed.end(), f[i]) != allowed.end()) return f[i];
      std::string list;
      for (const std::string& a : allowed) list += (list.empty() ? "" : ", ") + a;
      throw InputError({file, line, column[i]},
                       fmt::format("{} '{}' is not one of {}", what, f[i], list));
    };
    auto number = [&](int i, const char* what) {
      errno = 0;
      char* stop = nullptr;
      const double v = std::strtod(f[i].c_str(), &stop);
      if (f[i].empty() || *stop != '\0' || errno != 0 || !std::isfinite(v))
        throw InputError({file, line, column[i]},
                         fmt::format("{} '{}' is not a finite number", what, f[i]));
      return v;
    };
    ResidualRow r;
    r.id = f[0];
    r.source = f[1];
    if (r.id.empty() || r.source.empty())
      throw InputError({file, line, r.id.empty() ? 1 : column[1]},
                       "a case and its source are named");
    r.mechanism.binds = one_of(2, kBinds, "binds");
    r.mechanism.sync = one_of(3, kSync, "sync");
    r.support.transport = one_of(4, kTransport, "transport");
    r.support.intra_node = one_of(5, kIntra, "intra_node");
    const double generation = number(6, "generation"), gpus = number(7, "gpus");
    if (generation < 0 || generation > 100 || generation != std::floor(generation))
      throw InputError({file, line, column[6]}, "generation is a whole number from 0 to 100");
    if (gpus < 1 || gpus > 1e7 || gpus != std::floor(gpus))
      throw InputError({file, line, column[7]}, "gpus is a whole number from 1 to 10000000");
    r.support.generation = static_cast<int>(generation);
    r.support.gpus = static_cast<int>(gpus);
    r.measured = number(8, "measured");
    r.median = number(9, "median");
    r.nominal = number(10, "nominal");
    r.residual = number(11, "residual");
    r.nominal_residual = number(12, "nominal_residual");
    r.draw_spread = number(13, "draw_spread");
    if (r.draw_spread < 0) throw InputError({file, line, column[13]}, "draw_spread is at least 0");
    for (const auto& [value, i, name] : {std::tuple{r.residual, 11, "residual"},
                                         std::tuple{r.nominal_residual, 12, "nominal_residual"}})
      if (std::abs(value) > 10)
        throw InputError(
            {file, line, column[i]},
            fmt::format("{} is a log ratio between -10 and 10 (a factor of 22,000)", name));
    rows.push_back(r);
  }
  return rows;
}

}  // namespace ddpsim
