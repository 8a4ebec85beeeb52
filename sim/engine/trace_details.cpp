#include "sim/engine/trace_details.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <unordered_map>

#include "sim/engine/link_usage.h"

namespace ddpsim {
namespace {

// The number after `word ` in a slice name ("all-reduce bucket 3" -> 3), or -1.
int number_after(const std::string& name, const std::string& word) {
  const size_t at = name.find(word + " ");
  if (at == std::string::npos) return -1;
  size_t i = at + word.size() + 1;
  if (i >= name.size() || !std::isdigit(static_cast<unsigned char>(name[i]))) return -1;
  int n = 0;
  for (; i < name.size() && std::isdigit(static_cast<unsigned char>(name[i])); ++i)
    n = n * 10 + (name[i] - '0');
  return n;
}

// The links that get a counter track: the most utilised link of each class that simulated flows
// crossed in the traced step, most utilised first (the NIC ports of one ring all say the same
// thing), then the next most utilised, up to kCounterLinks.
std::vector<std::string> counter_links(const LinkMeter& meter) {
  const LinkCatalogue& cat = meter.catalogue();
  std::vector<std::pair<double, size_t>> used;
  for (size_t i = 0; i < cat.links.size(); ++i) {
    const LinkTotals& t = meter.totals()[i];
    if (!t.recent.empty()) used.emplace_back(t.flow_bytes / cat.links[i].bandwidth, i);
  }
  std::stable_sort(used.begin(), used.end(),
                   [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<size_t> chosen;
  std::vector<bool> class_seen(kLinkClasses, false);
  for (const auto& [u, i] : used) {
    const int c = static_cast<int>(cat.links[i].link_class);
    if (!class_seen[c]) chosen.push_back(i);
    class_seen[c] = true;
  }
  for (const auto& [u, i] : used)
    if (std::find(chosen.begin(), chosen.end(), i) == chosen.end()) chosen.push_back(i);
  std::vector<std::string> names;
  for (size_t k = 0; k < chosen.size() && k < static_cast<size_t>(kCounterLinks); ++k)
    names.push_back(cat.links[chosen[k]].name);
  return names;
}

}  // namespace

void add_trace_details(const RunContext& ctx, SimulationResult* r) {
  const int step = ctx.run_steps() - 1;
  const auto& buckets = ctx.plan->buckets;
  std::vector<std::string> algorithms;
  for (const BucketReport& b : r->buckets) algorithms.push_back(b.algorithm);

  const LinkCatalogue& cat = ctx.meter->catalogue();
  std::unordered_map<std::string, int> by_name;
  for (size_t i = 0; i < cat.links.size(); ++i) by_name[cat.links[i].name] = static_cast<int>(i);
  std::vector<int> busiest;
  for (const LinkReport& l : r->links.busiest) busiest.push_back(by_name.at(l.name));
  const ClusterPlatform& pf = *ctx.platform;
  // The GPU's own links first: on a tie (every NIC of a ring equally busy) a slice names its own.
  // A communication slice is bound by a link its collective crosses: never the shared store,
  // which the data loader keeps busy beside it (a store-bound run's all-reduce named it).
  auto candidates = [&](int rank, bool comm) {
    std::vector<int> out;
    const std::string gpu = "gpu" + std::to_string(rank);
    const std::string nic = "node" + std::to_string(pf.node_of_rank(rank)) + "/nic" +
                            std::to_string(pf.nic_of_local(pf.local_of_rank(rank)));
    for (const std::string& name : {nic + " tx", nic + " rx", gpu + "/pcie tx", gpu + "/pcie rx",
                                    gpu + "/nvlink tx", gpu + "/nvlink rx"}) {
      const auto it = by_name.find(name);
      if (it != by_name.end()) out.push_back(it->second);
    }
    for (int link : busiest)
      if (std::find(out.begin(), out.end(), link) == out.end() &&
          !(comm && cat.links[link].link_class == LinkClass::kStorage))
        out.push_back(link);
    return out;
  };

  // Sharded runs' units by name: "backward <unit>" slices get the unit their gradients fill.
  std::unordered_map<std::string, int> unit_by_name;
  for (size_t u = 0; u < ctx.plan->units.size(); ++u)
    unit_by_name.emplace(ctx.plan->units[u].name, static_cast<int>(u));

  double first = 0, last = 0;
  bool any = false;
  for (TraceEvent& e : r->trace) {
    e.numbers["step"] = step;
    const bool comm = e.lane.compare(0, 4, "comm") == 0;
    // Args set where the slice was recorded (sharded calls: bytes, collective, algorithm) win:
    // they describe that call, the bucket table its bucket.
    const int b = number_after(e.name, "bucket");
    if (b >= 0 && b < static_cast<int>(buckets.size())) {
      e.numbers.emplace("bucket", b);
      e.numbers.emplace("bytes", buckets[b].bytes);
      e.numbers.emplace("tensors", static_cast<double>(buckets[b].tensors.size()));
      if (comm && b < static_cast<int>(algorithms.size()))
        e.texts.emplace("algorithm", algorithms[b]);
    }
    if (comm && !e.texts.count("collective")) {
      const size_t space = e.name.find(' ');
      e.texts["collective"] = e.name.substr(0, space);  // "all-reduce", "push/pull"
    }
    if (e.lane == "compute" && e.name.compare(0, 9, "backward ") == 0) {
      const auto unit = unit_by_name.find(e.name.substr(9));
      if (unit != unit_by_name.end()) e.numbers.emplace("unit", unit->second);
    }
    const int batch = number_after(e.name, "batch");
    if (batch >= 0) e.numbers["batch"] = batch;
    if (comm || e.lane == "data") {
      const auto [link, u] = busiest_during(*ctx.meter, candidates(e.gpu, comm), e.start, e.end);
      if (link >= 0) {
        e.texts["link"] = cat.links[link].name;
        e.numbers["link utilisation %"] = 100 * u;
      }
    }
    first = any ? std::min(first, e.start) : e.start;
    last = any ? std::max(last, e.end) : e.end;
    any = true;
  }

  // The step as the profiler marks it: from the end of the previous step to the end of this one.
  for (int rank : r->traced_gpus) {
    const WorkerStats& w = ctx.workers[rank];
    if (w.steps_done < ctx.run_steps()) continue;
    TraceEvent marker(rank, "step", "ProfilerStep#" + std::to_string(step),
                      step > 0 ? w.step_end[step - 1] : 0.0, w.step_end[step]);
    marker.numbers["step"] = step;
    first = any ? std::min(first, marker.start) : marker.start;
    last = any ? std::max(last, marker.end) : marker.end;
    any = true;
    r->trace.push_back(std::move(marker));
  }

  if (!any) return;
  r->link_counters = link_counters(*ctx.meter, counter_links(*ctx.meter), first, last);
}

}  // namespace ddpsim
