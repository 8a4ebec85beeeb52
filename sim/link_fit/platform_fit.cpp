#include "sim/link_fit/platform_fit.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <optional>

#include "sim/link_fit/link_fraction_ranges.h"
#include "sim/measurements/link_parameters.h"
#include "sim/measurements/nccl_tests_import.h"
#include "sim/text/input_error.h"
#include "sim/text/units.h"

namespace ddpsim {
namespace {

// Sizes within a factor 8 of a log's largest fit bandwidth, within 8 of its smallest latency.
constexpr double kPointSpan = 8;
// A latency is fitted only where it makes at least this share of the smallest sizes' time.
constexpr double kMinLatencyShare = 0.2;
constexpr double kSolveTolerance = 1e-10;

struct Points {
  std::vector<double> bytes, seconds;
};

Points pick(const MeasuredSweep& m, bool bandwidth) {
  Points p;
  const double hi = m.samples.back().bytes, lo = m.samples.front().bytes;
  for (const CollectiveSample& s : m.samples) {
    if (bandwidth ? s.bytes >= hi / kPointSpan : s.bytes <= lo * kPointSpan) {
      p.bytes.push_back(s.bytes);
      p.seconds.push_back(s.seconds);
    }
  }
  return p;
}

// The logs that fit one link class, and its two parameters.
struct Group {
  std::string bandwidth, latency;
  std::vector<const MeasuredSweep*> logs;
};

std::string value_text(const std::string& parameter, double v) {
  const LinkParameter* p = find_link_parameter(parameter);
  return p != nullptr && p->kind == LinkParameterKind::kBandwidth ? units::format_bandwidth(v)
                                                                  : units::format_duration(v);
}

class GroupFit {
 public:
  GroupFit(const Group& group, ClusterSpec* cluster, const SweepSimulator& simulate)
      : group_(group), cluster_(cluster), simulate_(simulate) {}

  // mean(log(simulated / measured)) over the group's bandwidth or latency points.
  double mismatch(bool bandwidth) {
    double sum = 0;
    int n = 0;
    for (const MeasuredSweep* m : group_.logs) {
      const Points p = pick(*m, bandwidth);
      const std::vector<double> t = simulate_(cluster_of_log(*cluster_, *m), p.bytes);
      for (size_t i = 0; i < t.size(); ++i, ++n) sum += std::log(t[i] / p.seconds[i]);
    }
    return n > 0 ? sum / n : 0;
  }

  // The largest |simulated / measured - 1| over those points, and the sizes they span.
  void quality(bool bandwidth, FittedParameter* out) {
    out->max_error = 0;
    out->min_bytes = 0;
    out->max_bytes = 0;
    for (const MeasuredSweep* m : group_.logs) {
      const Points p = pick(*m, bandwidth);
      const std::vector<double> t = simulate_(cluster_of_log(*cluster_, *m), p.bytes);
      for (size_t i = 0; i < t.size(); ++i)
        out->max_error = std::max(out->max_error, std::abs(t[i] / p.seconds[i] - 1));
      out->min_bytes =
          out->min_bytes > 0 ? std::min(out->min_bytes, p.bytes.front()) : p.bytes.front();
      out->max_bytes = std::max(out->max_bytes, p.bytes.back());
    }
  }

  // Solves mismatch(points) = 0 for `parameter`: secant steps on log(value) for a bandwidth,
  // on the value for a latency (kept >= 0), falling back to bisection once the root is
  // bracketed (a link that stops binding makes the curve flat on one side).
  void solve(const std::string& parameter, bool bandwidth) {
    double& field = *link_parameter(cluster_, parameter);
    std::optional<double> above, below;  // x where the simulation is too slow / too fast
    auto g = [&](double x) {
      field = bandwidth ? std::exp(x) : x;
      const double v = mismatch(bandwidth);
      (v > 0 ? above : below) = x;
      return v;
    };
    double x0 = bandwidth ? std::log(field) : field;
    double g0 = g(x0);
    if (std::abs(g0) < kSolveTolerance) return;
    // First step: a bandwidth off by e^g scales by it; a latency gets a probe.
    double x1 = bandwidth ? x0 + g0 : std::max(0.0, x0 * (1 - g0)) + (x0 > 0 ? 0.0 : 1e-6);
    double g1 = g(x1);
    for (int it = 0; it < 100 && std::abs(g1) >= kSolveTolerance; ++it) {
      double x2 = g1 != g0 ? x1 - g1 * (x1 - x0) / (g1 - g0) : x1;
      if (above && below) {
        const double lo = std::min(*above, *below), hi = std::max(*above, *below);
        if (!(x2 > lo && x2 < hi) || g1 == g0) x2 = 0.5 * (lo + hi);
        if (hi - lo <= 1e-14 * std::max(1.0, std::abs(hi))) break;
      } else if (g1 == g0) {
        insensitive(parameter, bandwidth, x1);
      }
      if (!bandwidth && x2 < 0) {
        if (x1 == 0) negative_latency(parameter);
        x2 = 0;
      }
      x0 = x1, g0 = g1;
      x1 = x2, g1 = g(x2);
    }
    if (!bandwidth && x1 == 0 && g1 > 1e-6) negative_latency(parameter);
    field = bandwidth ? std::exp(x1) : x1;
  }

  // Whether the smallest sizes leave room for a latency: with it at 0, the simulated time is
  // at most (1 - kMinLatencyShare) of the measured one.
  bool latency_identifiable() {
    double& field = *link_parameter(cluster_, group_.latency);
    const double kept = field;
    field = 0;
    const double at_zero = mismatch(false);
    field = kept;
    if (at_zero > kSolveTolerance) negative_latency(group_.latency);
    return at_zero < std::log(1 - kMinLatencyShare);
  }

 private:
  [[noreturn]] void insensitive(const std::string& parameter, bool bandwidth, double x) const {
    throw InputError(
        {group_.logs.front()->log, 0, 0},
        fmt::format("{} cannot reproduce this log: the simulated all-reduce stops changing with "
                    "it at {} (another link of the scenario's topology is the bottleneck{}); "
                    "check the scenario's links, NIC count and GPUs per node against the "
                    "machine that ran the log",
                    parameter, value_text(parameter, bandwidth ? std::exp(x) : x),
                    bandwidth
                        ? ": cluster.pcie = " + units::format_bandwidth(cluster_->pcie_bandwidth) +
                              ", cluster.intra_node.bandwidth = " +
                              units::format_bandwidth(cluster_->intra_node.bandwidth)
                        : ": the ring charges the largest latency of its edges, "
                          "cluster.intra_node.latency = " +
                              units::format_duration(cluster_->intra_node.latency)));
  }

  [[noreturn]] void negative_latency(const std::string& parameter) const {
    const MeasuredSweep& m = *group_.logs.front();
    throw InputError(
        {m.log, 0, 0},
        fmt::format("{} would have to be negative: with it at 0 the simulated all-reduce of {} "
                    "is still slower than the measured {} (with sync.latency_model: nccl every "
                    "call pays NCCL's base and per-hop latencies, with alpha the ring pays the "
                    "largest latency of its edges: cluster.intra_node.latency = {}, "
                    "cluster.nic.latency = {}); the scenario's topology or bandwidths do not "
                    "match this log, or NCCL ran an algorithm the model lacks (NVLS, CollNet: "
                    "measure with NCCL_ALGO=Ring)",
                    parameter, units::format_bytes(m.samples.front().bytes),
                    units::format_duration(m.samples.front().seconds),
                    units::format_duration(cluster_->intra_node.latency),
                    units::format_duration(cluster_->nic.latency)));
  }

  const Group& group_;
  ClusterSpec* cluster_;
  const SweepSimulator& simulate_;
};

void check_log(const MeasuredSweep& m) {
  if (m.gpus < 2 || m.nodes < 1 || m.gpus % m.nodes != 0)
    throw InputError({m.log, 0, 0},
                     fmt::format("the log ran on {} GPUs over {} nodes: a fit needs at least 2 "
                                 "GPUs spread evenly over the nodes (its '# Rank' lines say "
                                 "where; a log without them takes LOG@NODESxGPUS)",
                                 m.gpus, m.nodes));
  if (m.samples.size() < 2) throw InputError({m.log, 0, 0}, "the log has fewer than 2 sizes");
}

}  // namespace

MeasuredSweep measured_sweep(const NcclTestsLog& log, const std::string& name) {
  MeasuredSweep m;
  m.log = name;
  m.gpus = log.ranks;
  m.nodes = log.nodes;
  m.device = log.device;
  m.samples = log.samples;
  return m;
}

ClusterSpec cluster_of_log(const ClusterSpec& cluster, const MeasuredSweep& log) {
  ClusterSpec c = cluster;
  c.nodes = log.nodes;
  c.gpus_per_node = log.gpus / log.nodes;
  c.nic.count = std::min(c.nic.count, c.gpus_per_node);
  return c;
}

PlatformFit fit_platform(const ClusterSpec& cluster, const std::vector<MeasuredSweep>& logs,
                         const SweepSimulator& simulate) {
  PlatformFit fit;
  fit.cluster = cluster;
  Group intra{cluster.intra_node.kind == IntraNodeKind::kPcie ? "cluster.pcie"
                                                              : "cluster.intra_node.bandwidth",
              "cluster.intra_node.latency",
              {}};
  Group network{"cluster.nic.bandwidth", "cluster.nic.latency", {}};
  for (const MeasuredSweep& m : logs) {
    check_log(m);
    (m.nodes == 1 ? intra : network).logs.push_back(&m);
  }
  for (const Group* group : {&intra, &network}) {
    if (group->logs.empty()) continue;
    GroupFit g(*group, &fit.cluster, simulate);
    g.solve(group->bandwidth, true);
    const bool latency = g.latency_identifiable();
    for (int round = 0; round < 30; ++round) {
      const double bw = *link_parameter(&fit.cluster, group->bandwidth);
      const double lat = *link_parameter(&fit.cluster, group->latency);
      if (latency) g.solve(group->latency, false);
      g.solve(group->bandwidth, true);
      const double bw2 = *link_parameter(&fit.cluster, group->bandwidth);
      const double lat2 = *link_parameter(&fit.cluster, group->latency);
      if (std::abs(bw2 / bw - 1) < 1e-9 && std::abs(lat2 - lat) <= 1e-9 * std::max(lat2, 1e-9))
        break;
    }
    const MeasuredSweep& first = *group->logs.front();
    std::string sources;
    for (const MeasuredSweep* m : group->logs) sources += (sources.empty() ? "" : ", ") + m->log;
    for (const std::string& name : {group->bandwidth, group->latency}) {
      const bool bandwidth = name == group->bandwidth;
      if (!bandwidth && !latency) {
        fit.notes.push_back(fmt::format(
            "{} not fitted: the smallest sizes of {} ({}) are bandwidth-bound in the model (a "
            "latency would be under {:.0f} % of their time); kept at the scenario's {}",
            name, sources, units::format_bytes(first.samples.front().bytes), 100 * kMinLatencyShare,
            value_text(name, *link_parameter(&fit.cluster, name))));
        continue;
      }
      FittedParameter p;
      p.parameter = name;
      p.value = *link_parameter(&fit.cluster, name);
      p.scenario_value = *link_parameter(const_cast<ClusterSpec*>(&cluster), name);
      p.log = sources;
      p.gpus = first.gpus;
      p.nodes = first.nodes;
      p.device = first.device;
      g.quality(bandwidth, &p);
      // Above the line rate by more than the fit's own residual at its points (at least 0.1 %,
      // what the log's printed digits carry): smaller excesses are the model's, not the link's.
      if (bandwidth && p.value > p.scenario_value * (1 + std::max(1e-3, p.max_error)))
        p.flag = "above the scenario's " + value_text(name, p.scenario_value) + " (its line rate)";
      else if (bandwidth)
        p.flag = link_fraction_flag(name, cluster, p.value, p.scenario_value,
                                    std::max(1e-3, p.max_error));
      fit.calibration.parameters.push_back(p);
    }
  }
  if (fit.cluster.intra_node.kind == IntraNodeKind::kPcie)
    fit.cluster.intra_node.bandwidth = fit.cluster.pcie_bandwidth;
  for (const MeasuredSweep& m : logs) {
    FitReport report;
    report.sweep = &m;
    std::vector<double> sizes;
    for (const CollectiveSample& s : m.samples) sizes.push_back(s.bytes);
    const std::vector<double> t = simulate(cluster_of_log(fit.cluster, m), sizes);
    const Points bw = pick(m, true), lat = pick(m, false);
    const bool latency_fitted =
        std::any_of(fit.calibration.parameters.begin(), fit.calibration.parameters.end(),
                    [&](const FittedParameter& p) {
                      return p.parameter == (m.nodes == 1 ? intra.latency : network.latency);
                    });
    for (size_t i = 0; i < sizes.size(); ++i) {
      FitRow row{sizes[i], m.samples[i].seconds, t[i], ' '};
      if (std::find(bw.bytes.begin(), bw.bytes.end(), sizes[i]) != bw.bytes.end())
        row.used = 'B';
      else if (latency_fitted &&
               std::find(lat.bytes.begin(), lat.bytes.end(), sizes[i]) != lat.bytes.end())
        row.used = 'L';
      report.rows.push_back(row);
    }
    fit.reports.push_back(std::move(report));
  }
  return fit;
}

std::string format_platform_fit(const PlatformFit& fit) {
  std::string out;
  for (const FitReport& r : fit.reports) {
    const MeasuredSweep& m = *r.sweep;
    const double factor = bus_bandwidth_factor(CollectiveOp::kAllReduce, m.gpus);
    out += fmt::format("# {}: all_reduce on {} GPUs ({} node{}{})\n", m.log, m.gpus, m.nodes,
                       m.nodes == 1 ? "" : "s", m.device.empty() ? "" : ", " + m.device);
    out +=
        "#       size     measured    predicted   measured  predicted    error  fitted\n"
        "#        (B)         (us)         (us)      busbw      busbw      (%)     on\n";
    for (const FitRow& row : r.rows) {
      const double meas = row.bytes / row.measured / 1e9 * factor;
      const double pred = row.bytes / row.predicted / 1e9 * factor;
      out += fmt::format("{:12.0f}  {:>11}  {:>11}  {:9.2f}  {:9.2f}  {:+7.2f}  {:>5}\n", row.bytes,
                         fmt::format("{:.2f}", row.measured * 1e6),
                         fmt::format("{:.2f}", row.predicted * 1e6), meas, pred,
                         100 * (row.predicted / row.measured - 1),
                         row.used == 'B'   ? "bw"
                         : row.used == 'L' ? "lat"
                                           : "");
    }
    out += "#\n";
  }
  out +=
      "# parameter                      fitted        scenario      sizes fitted on           "
      "max error\n";
  for (const FittedParameter& p : fit.calibration.parameters) {
    out += fmt::format("{:<32} {:<13} {:<13} {:<25} {:6.2f} %{}\n", p.parameter,
                       value_text(p.parameter, p.value), value_text(p.parameter, p.scenario_value),
                       units::format_bytes(p.min_bytes) + " - " + units::format_bytes(p.max_bytes),
                       100 * p.max_error, p.flag.empty() ? "" : "  FLAG: " + p.flag);
  }
  for (const std::string& n : fit.notes) out += "# note: " + n + "\n";
  return out;
}

}  // namespace ddpsim
