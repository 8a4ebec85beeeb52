#include "sim/engine/trace_selection.h"

#include <algorithm>
#include <cctype>
#include <sstream>

#include "sim/cost/stragglers.h"

namespace ddpsim {
namespace {

bool whole(const std::string& s, int* out) {
  if (s.empty() || s.size() > 9 ||
      !std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c); }))
    return false;
  *out = std::stoi(s);
  return true;
}

}  // namespace

bool parse_trace_gpus(const std::string& text, TraceGpus* out, std::string* error) {
  if (text == "auto" || text == "all" || text == "none") {
    *out = text == "auto"  ? TraceGpus{}
           : text == "all" ? TraceGpus{TraceGpus::Kind::kAll, {}}
                           : TraceGpus::none();
    return true;
  }
  TraceGpus gpus{TraceGpus::Kind::kList, {}};
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const size_t dash = item.find('-');
    int first = 0, last = 0;
    const bool ok = dash == std::string::npos ? whole(item, &first) && (last = first, true)
                                              : whole(item.substr(0, dash), &first) &&
                                                    whole(item.substr(dash + 1), &last);
    if (!ok || last < first || last > kMaxTraceRank) {
      *error = "expected auto, all, none or GPU ranks such as 0,5,8-15 (at most " +
               std::to_string(kMaxTraceRank) + "), got '" + text + "'";
      return false;
    }
    for (int r = first; r <= last; ++r) gpus.ranks.push_back(r);
  }
  if (gpus.ranks.empty() || text.back() == ',') {
    *error = "expected auto, all, none or GPU ranks such as 0,5,8-15 (at most " +
             std::to_string(kMaxTraceRank) + "), got '" + text + "'";
    return false;
  }
  std::sort(gpus.ranks.begin(), gpus.ranks.end());
  gpus.ranks.erase(std::unique(gpus.ranks.begin(), gpus.ranks.end()), gpus.ranks.end());
  *out = gpus;
  return true;
}

std::string trace_gpus_text(const TraceGpus& gpus) {
  if (gpus.kind == TraceGpus::Kind::kAuto) return "auto";
  if (gpus.kind == TraceGpus::Kind::kAll) return "all";
  if (gpus.ranks.empty()) return "none";
  std::string out;
  for (int r : gpus.ranks) out += (out.empty() ? "" : ",") + std::to_string(r);
  return out;
}

std::vector<int> traced_ranks(const Scenario& s, const TraceGpus& gpus) {
  const int p = s.cluster.total_gpus();
  std::vector<int> ranks;
  if (gpus.kind == TraceGpus::Kind::kAll) {
    for (int r = 0; r < p; ++r) ranks.push_back(r);
    return ranks;
  }
  if (gpus.kind == TraceGpus::Kind::kList) {
    for (int r : gpus.ranks)
      if (r >= p)
        throw InputError("--trace-gpus: GPU " + std::to_string(r) + " is not in the cluster (" +
                         std::to_string(p) + " GPUs: ranks 0-" + std::to_string(p - 1) + ")");
    return gpus.ranks;
  }
  const int nodes = s.cluster.nodes, g = s.cluster.gpus_per_node;
  const int shown = std::min(nodes, kMaxTracedNodes);
  for (int i = 0; i < shown; ++i) {
    // Evenly spread, first and last node included.
    const int node =
        shown == 1 ? 0 : static_cast<int>((static_cast<long long>(i) * (nodes - 1)) / (shown - 1));
    ranks.push_back(node * g);
  }
  const int step = s.training.iterations - 1;
  int slowest = -1;
  double worst = 1.0;
  for (int r = 0; r < p; ++r) {
    const double f = straggler_factor(s.stragglers, s.seed, r, step);
    if (f > worst) {
      worst = f;
      slowest = r;
    }
  }
  if (slowest >= 0) ranks.push_back(slowest);
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

}  // namespace ddpsim
