#include "sim/uncertainty/uncertainty.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "sim/uncertainty/draw_runner.h"
#include "sim/uncertainty/latin_hypercube.h"
#include "sim/validation/error_stats.h"
#include "sim/validation/mechanism_class.h"

namespace ddpsim {
namespace {

std::string with_commas(double v) {
  std::string s = fmt::format("{:.0f}", v);
  for (int i = static_cast<int>(s.size()) - 3; i > 0; i -= 3) s.insert(i, ",");
  return s;
}

nlohmann::json model_error_to_json(const Discrepancy& d) {
  if (!d.known()) return {{"known", false}};
  return {{"known", true},
          {"class", d.mechanism.name()},
          {"pooled", d.pooled},
          {"anchored_at_nominal", d.borrowed()},
          {"cases", d.cases},
          {"median_log_residual", d.shift},
          {"residual_spread", d.spread},
          {"scale", d.scale},
          {"distance", d.distance},
          {"source", "scenarios/validation/discrepancy.csv (docs/model-error.md)"}};
}

}  // namespace

void use_model_error(UncertaintyOptions* options, const Scenario& scenario,
                     const SimulationResult& nominal, const std::vector<ResidualRow>& rows) {
  options->model_error =
      estimate_discrepancy(rows, classify_mechanism(scenario, nominal), support_features(scenario));
  options->nominal_rate = nominal.samples_per_second;
  options->nominal_time = nominal.iteration_time;
}

std::string format_model_error(const Discrepancy& d) {
  if (!d.known()) return "";
  // Borrowed residuals are errors at documented values: their median is against the nominal run.
  const char* pooled = d.pooled == "class"   ? "its class"
                       : d.pooled == "binds" ? "cases bound like it, against their nominal runs"
                                             : "every class pooled, against their nominal runs";
  std::string out = fmt::format(
      "model error     {}: measured on {} validated cases ({}): median {:+.1f} %, spread "
      "{:.1f} % (docs/model-error.md)\n",
      d.mechanism.name(), d.cases, pooled, 100 * (std::exp(d.shift) - 1), 100 * d.spread);
  std::string reasons;
  for (const std::string& why : d.distance) reasons += (reasons.empty() ? "" : "; ") + why;
  if (!reasons.empty())
    out += fmt::format("unlike checked  {}: its model error is widened {:g}x\n", reasons,
                       kDistanceInflation);
  return out;
}

Band band_of(const std::vector<double>& values) {
  return Band{percentile(values, 0.1), percentile(values, 0.5), percentile(values, 0.9)};
}

std::vector<std::vector<double>> uncertainty_design(int samples, uint64_t seed) {
  return latin_hypercube(samples, static_cast<int>(assumption_rows().size()), seed);
}

UncertaintyReport assess_uncertainty(const Scenario& scenario,
                                     const std::vector<LedgerEntry>& ledger,
                                     const UncertaintyOptions& options) {
  UncertaintyReport report;
  report.samples = options.samples;
  report.seed = options.seed;
  report.defaulted = defaulted_inputs(ledger);
  std::vector<Scenario> runs;
  for (const std::vector<double>& u : uncertainty_design(options.samples, options.seed))
    runs.push_back(drawn_scenario(scenario, ledger, u));
  std::vector<const LedgerEntry*> swung;
  if (options.influences)
    for (const LedgerEntry& e : ledger) {
      if (e.source != InputSource::kDefault || e.low == e.high) continue;
      swung.push_back(&e);
      for (double end : {e.low, e.high}) {
        runs.push_back(scenario);
        e.row->set(&runs.back(), end);
      }
    }
  const std::vector<SimulationResult> results = run_scenarios(runs, options.jobs, options.progress);
  std::vector<double> exposed;
  for (int i = 0; i < options.samples; ++i) {
    report.draw_rates.push_back(results[i].samples_per_second);
    report.draw_times.push_back(results[i].iteration_time);
    exposed.push_back(results[i].exposed_comm_share);
  }
  report.model_error = options.model_error;
  report.draws_samples_per_second = band_of(report.draw_rates);
  const Discrepancy& d = options.model_error;
  report.samples_per_second =
      combined_band(anchored_draws(report.draw_rates, d, options.nominal_rate), d, true);
  report.iteration_time =
      combined_band(anchored_draws(report.draw_times, d, options.nominal_time), d, false);
  report.exposed_comm_share = band_of(exposed);
  for (size_t k = 0; k < swung.size(); ++k) {
    const size_t at = options.samples + 2 * k;
    report.influences.push_back({swung[k]->row, swung[k]->low, swung[k]->high,
                                 results[at].samples_per_second,
                                 results[at + 1].samples_per_second});
  }
  std::stable_sort(report.influences.begin(), report.influences.end(),
                   [](const Influence& a, const Influence& b) {
                     return std::abs(a.rate_high - a.rate_low) > std::abs(b.rate_high - b.rate_low);
                   });
  return report;
}

nlohmann::json uncertainty_to_json(const UncertaintyReport& r) {
  auto band = [](const Band& b) {
    return nlohmann::json{{"p10", b.p10}, {"p50", b.p50}, {"p90", b.p90}};
  };
  nlohmann::json j;
  j["samples"] = r.samples;
  j["seed"] = r.seed;
  j["design"] = "latin-hypercube";
  j["defaulted_inputs"] = r.defaulted;
  j["samples_per_second"] = band(r.samples_per_second);
  j["iteration_time"] = band(r.iteration_time);
  j["exposed_comm_share"] = band(r.exposed_comm_share);
  j["draws_samples_per_second"] = band(r.draws_samples_per_second);
  j["model_error"] = model_error_to_json(r.model_error);
  nlohmann::json influences = nlohmann::json::array();
  for (const Influence& i : r.influences)
    influences.push_back({{"input", i.row->key},
                          {"label", i.row->label},
                          {"low", i.low},
                          {"high", i.high},
                          {"samples_per_second_low", i.rate_low},
                          {"samples_per_second_high", i.rate_high},
                          {"measure", i.row->measure}});
  j["influences"] = influences;
  return j;
}

nlohmann::json headline_to_json(const UncertaintyReport& r) {
  return {{"samples_per_second", r.samples_per_second.p50},
          {"iteration_time", r.iteration_time.p50},
          {"what",
           "median of the uncertainty draws x the model's measured error; p10-p90 in "
           "result.uncertainty"}};
}

nlohmann::json nominal_to_json(const SimulationResult& n) {
  return {{"samples_per_second", n.samples_per_second},
          {"iteration_time", n.iteration_time},
          {"scaling_efficiency", n.scaling_efficiency},
          {"exposed_comm_share", n.exposed_comm_share},
          {"what",
           "every default at its documented value: result's breakdown, links and trace "
           "describe this run"}};
}

std::string format_influences(const UncertaintyReport& r, const std::string& unit, size_t top) {
  std::string out;
  for (size_t k = 0; k < r.influences.size() && k < top; ++k) {
    const Influence& i = r.influences[k];
    out +=
        fmt::format("  {:<34} {} -> {}: {} - {} {}/s\n", i.row->label, i.row->format(i.low),
                    i.row->format(i.high), with_commas(i.rate_low), with_commas(i.rate_high), unit);
  }
  return out;
}

std::string assumptions_line(const std::vector<LedgerEntry>& ledger,
                             const UncertaintyReport* report) {
  const int defaulted = defaulted_inputs(ledger);
  if (defaulted == 0)
    return "assumptions     none: every uncertain input is stated or measured "
           "(result.assumptions)";
  std::vector<const LedgerEntry*> order;
  if (report != nullptr)
    for (const Influence& i : report->influences)
      for (const LedgerEntry& e : ledger)
        if (e.row == i.row) order.push_back(&e);
  for (const LedgerEntry& e : ledger)
    if (e.source == InputSource::kDefault &&
        std::find(order.begin(), order.end(), &e) == order.end())
      order.push_back(&e);
  std::string named;
  const size_t shown = std::min<size_t>(order.size(), 3);
  for (size_t k = 0; k < shown; ++k) named += (k ? ", " : "") + describe_entry(*order[k]);
  if (order.size() > shown) named += fmt::format(" and {} more", order.size() - shown);
  return fmt::format("assumptions     {} default{}: {} (result.assumptions)", defaulted,
                     defaulted == 1 ? "" : "s", named);
}

double rank_correlation(const std::vector<double>& x, const std::vector<double>& y) {
  auto ranks = [](const std::vector<double>& v) {
    std::vector<size_t> order(v.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
    // Tied values share the mean of their ranks (a constant input has no spread: rho 0).
    std::vector<double> r(v.size());
    for (size_t i = 0; i < order.size();) {
      size_t j = i;
      while (j + 1 < order.size() && v[order[j + 1]] == v[order[i]]) ++j;
      for (size_t k = i; k <= j; ++k) r[order[k]] = (static_cast<double>(i) + j) / 2;
      i = j + 1;
    }
    return r;
  };
  const std::vector<double> a = ranks(x), b = ranks(y);
  const double n = static_cast<double>(a.size());
  const double mean = (n - 1) / 2;
  double sab = 0, saa = 0, sbb = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    sab += (a[i] - mean) * (b[i] - mean);
    saa += (a[i] - mean) * (a[i] - mean);
    sbb += (b[i] - mean) * (b[i] - mean);
  }
  return saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0;
}

}  // namespace ddpsim
