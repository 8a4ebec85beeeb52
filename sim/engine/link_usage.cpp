#include "sim/engine/link_usage.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace ddpsim {
namespace {

// Bytes a link carried between from and to, each interval's bytes spread evenly over it.
double bytes_between(const LinkTotals& t, double from, double to) {
  double bytes = 0;
  for (const LinkInterval& i : t.recent) {
    const double overlap = std::min(i.end, to) - std::max(i.start, from);
    if (overlap <= 0 && !(i.end == i.start && i.start >= from && i.start <= to)) continue;
    bytes += i.end > i.start ? i.bytes * overlap / (i.end - i.start) : i.bytes;
  }
  return bytes;
}

}  // namespace

LinkUsage link_usage(const LinkMeter& meter, int steps, size_t busiest) {
  LinkUsage u;
  const LinkCatalogue& cat = meter.catalogue();
  u.window = std::max(0.0, meter.window_end() - meter.window_start());
  u.steps = steps;
  const double per = steps > 0 ? 1.0 / steps : 0.0;
  std::vector<LinkReport> all;
  all.reserve(cat.links.size());
  for (size_t i = 0; i < cat.links.size(); ++i) {
    const LinkInfo& info = cat.links[i];
    const LinkTotals& t = meter.totals()[i];
    LinkReport r;
    r.name = info.name;
    r.link_class = link_class_name(info.link_class);
    r.group = link_group_name(info.group);
    r.label = link_group_label(info.group);
    r.node = info.node;
    r.leaf = info.leaf;
    r.bandwidth = info.bandwidth;
    r.bytes = (t.flow_bytes + t.accounted_bytes) * per;
    r.accounted_bytes = t.accounted_bytes * per;
    r.busy = t.busy() * per;
    // Only bytes that took link time: bytes charged from an alpha-beta table moved in the
    // table's time, not the link's, and a share of capacity made of them would be no measure.
    r.utilisation = u.window > 0 ? t.flow_bytes / (info.bandwidth * u.window) : 0.0;
    all.push_back(std::move(r));
  }

  for (int c = 0; c < kLinkClasses; ++c) {
    LinkClassReport cr;
    cr.link_class = link_class_name(static_cast<LinkClass>(c));
    double sum = 0;
    for (size_t i = 0; i < all.size(); ++i) {
      if (static_cast<int>(cat.links[i].link_class) != c) continue;
      const LinkReport& r = all[i];
      ++cr.links;
      if (r.bytes <= 0) continue;
      ++cr.used;
      cr.bytes += r.bytes;
      cr.busy_max = std::max(cr.busy_max, r.busy);
      sum += r.utilisation;
      if (r.utilisation > cr.utilisation_max || cr.busiest.empty()) {
        cr.utilisation_max = r.utilisation;
        cr.busiest = r.name;
      }
    }
    cr.utilisation_mean = cr.used > 0 ? sum / cr.used : 0.0;
    u.classes.push_back(cr);
  }

  // Most utilised first; ties in catalogue order (stable), so the output is deterministic.
  std::vector<size_t> order;
  for (size_t i = 0; i < all.size(); ++i)
    if (all[i].utilisation > 0) order.push_back(i);
  std::stable_sort(order.begin(), order.end(),
                   [&](size_t a, size_t b) { return all[a].utilisation > all[b].utilisation; });
  for (size_t k = 0; k < std::min(busiest, order.size()); ++k) u.busiest.push_back(all[order[k]]);

  for (int g = 0; g < kNodeLinkGroups; ++g) u.node_groups.push_back(link_group_name(LinkGroup(g)));
  int nodes = 0;
  for (const LinkInfo& info : cat.links) nodes = std::max(nodes, info.node + 1);
  u.per_node.assign(nodes, std::vector<double>(kNodeLinkGroups, -1.0));
  for (size_t i = 0; i < all.size(); ++i) {
    const LinkInfo& info = cat.links[i];
    if (info.node < 0) {
      u.fabric.push_back(all[i]);
      continue;
    }
    double& cell = u.per_node[info.node][static_cast<int>(info.group)];
    cell = std::max(cell, all[i].utilisation);
  }
  return u;
}

std::string binding_links(const LinkUsage& usage) {
  if (usage.busiest.empty()) return "";
  const LinkReport& top = usage.busiest.front();
  // Exposed communication while even the busiest link idles most of the step is the calls'
  // latency (many small calls, a long ring), not a link's bandwidth: more bandwidth would not help.
  if (top.utilisation < kLatencyBoundBelow)
    return fmt::format("per-call latency: the busiest links, {}, only {:.0f} % busy", top.label,
                       100 * top.utilisation);
  return fmt::format("{} {:.0f} % busy", top.label, 100 * top.utilisation);
}

std::vector<LinkCounter> link_counters(const LinkMeter& meter,
                                       const std::vector<std::string>& links, double from,
                                       double to) {
  const LinkCatalogue& cat = meter.catalogue();
  std::vector<LinkCounter> out;
  for (const std::string& name : links) {
    const auto it = std::find_if(cat.links.begin(), cat.links.end(),
                                 [&](const LinkInfo& l) { return l.name == name; });
    if (it == cat.links.end()) continue;
    const size_t index = static_cast<size_t>(it - cat.links.begin());
    const LinkTotals& t = meter.totals()[index];
    // Every change of the summed mean rates: +rate at a flow's start, -rate at its end.
    std::vector<std::pair<double, double>> steps;
    for (const LinkInterval& i : t.recent) {
      const double a = std::max(i.start, from), b = std::min(i.end, to);
      if (b <= a || i.end <= i.start) continue;
      const double rate = i.bytes / (i.end - i.start) / it->bandwidth;
      steps.emplace_back(a, rate);
      steps.emplace_back(b, -rate);
    }
    std::sort(steps.begin(), steps.end());
    LinkCounter c;
    c.link = name;
    c.points.emplace_back(from, 0.0);
    double level = 0;
    for (size_t k = 0; k < steps.size(); ++k) {
      level += steps[k].second;
      if (k + 1 < steps.size() && steps[k + 1].first == steps[k].first) continue;
      const double shown = std::abs(level) < 1e-12 ? 0.0 : level;
      if (c.points.back().first == steps[k].first)
        c.points.back().second = shown;
      else
        c.points.emplace_back(steps[k].first, shown);
    }
    if (c.points.back().first < to) c.points.emplace_back(to, 0.0);
    out.push_back(std::move(c));
  }
  return out;
}

std::pair<int, double> busiest_during(const LinkMeter& meter, const std::vector<int>& candidates,
                                      double from, double to) {
  std::pair<int, double> best{-1, 0.0};
  if (to <= from) return best;
  for (int index : candidates) {
    const double bytes = bytes_between(meter.totals()[index], from, to);
    const double u = bytes / (meter.catalogue().links[index].bandwidth * (to - from));
    if (u > best.second) best = {index, u};
  }
  return best;
}

}  // namespace ddpsim
