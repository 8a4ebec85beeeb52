#include "sim/collectives/link_meter.h"

#include <algorithm>

namespace ddpsim {
namespace {

// SimGrid's completion signal is process-wide and cannot be disconnected: it is connected once
// and forwards to the meter of the run in progress (one engine, hence one run, per process).
LinkMeter* active_meter = nullptr;

double now() { return simgrid::s4u::Engine::get_clock(); }

// Sorts and merges overlapping or touching intervals in place.
void merge(std::vector<std::pair<double, double>>* lives) {
  std::sort(lives->begin(), lives->end());
  size_t out = 0;
  for (const auto& life : *lives) {
    if (out > 0 && life.first <= (*lives)[out - 1].second)
      (*lives)[out - 1].second = std::max((*lives)[out - 1].second, life.second);
    else
      (*lives)[out++] = life;
  }
  lives->resize(out);
}

}  // namespace

void LinkTotals::add_busy(double start, double end) {
  if (end <= start) return;
  lives_.emplace_back(start, end);
  if (lives_.size() > 2 * merged_ + 256) {
    merge(&lives_);
    merged_ = lives_.size();
  }
}

double LinkTotals::busy() const {
  std::vector<std::pair<double, double>> lives = lives_;
  merge(&lives);
  double total = 0;
  for (const auto& [start, end] : lives) total += end - start;
  return total;
}

LinkMeter::LinkMeter(const ClusterPlatform& platform)
    : platform_(platform), catalogue_(catalogue_links(platform)) {
  totals_.resize(catalogue_.links.size());
  static bool connected = false;
  if (!connected) {
    simgrid::s4u::Activity::on_completion_cb([](const simgrid::s4u::Activity& a) {
      if (active_meter != nullptr) active_meter->completed(a);
    });
    connected = true;
  }
  active_meter = this;
}

LinkMeter::~LinkMeter() {
  if (active_meter == this) active_meter = nullptr;
}

void LinkMeter::add_flow(const simgrid::s4u::CommPtr& comm, const simgrid::s4u::Host* from,
                         const simgrid::s4u::Host* to, double bytes) {
  if (closed_ || from == to || comm->get_impl() == nullptr) return;
  track({comm, from, to, nullptr, bytes});
}

void LinkMeter::add_io(const simgrid::s4u::IoPtr& io, const simgrid::s4u::Link* link,
                       double bytes) {
  if (closed_ || link == nullptr || io->get_impl() == nullptr) return;
  track({io, nullptr, nullptr, link, bytes});
}

void LinkMeter::track(Flow flow) {
  if (opened_) flow.moved_at_open = 0;
  flow.order = registered_++;
  const void* key = flow.comm->get_impl();
  flows_[key] = std::move(flow);
}

void LinkMeter::refresh_bandwidth(const simgrid::s4u::Link* link) {
  const auto it = catalogue_.index.find(link);
  if (it != catalogue_.index.end()) catalogue_.links[it->second].bandwidth = link->get_bandwidth();
}

void LinkMeter::add_accounted(const simgrid::s4u::Host* from, const simgrid::s4u::Host* to,
                              double bytes) {
  if (!window_open()) return;
  for (const simgrid::s4u::Link* link : expected_route(platform_, from, to))
    totals_[catalogue_.index.at(link)].accounted_bytes += bytes;
}

double LinkMeter::moved(const Flow& flow) const {
  // A put not matched yet has no start time, and SimGrid reports 0 remaining for it.
  if (flow.comm->get_start_time() < 0) return 0;
  return std::clamp(flow.bytes - flow.comm->get_remaining(), 0.0, flow.bytes);
}

void LinkMeter::open_window() {
  if (opened_) return;
  opened_ = true;
  start_ = now();
  for (auto& [impl, flow] : flows_) flow.moved_at_open = moved(flow);
}

void LinkMeter::close_window() {
  if (!opened_ || closed_) return;
  closed_ = true;
  end_ = now();
  for (auto& [impl, flow] : flows_) flow.moved_at_close = moved(flow);
}

void LinkMeter::keep_details_from_now() { details_from_ = std::min(details_from_, now()); }

void LinkMeter::restart_details_from_now() {
  details_from_ = now();
  for (LinkTotals& t : totals_)
    t.recent.erase(std::remove_if(t.recent.begin(), t.recent.end(),
                                  [this](const LinkInterval& i) { return i.end < details_from_; }),
                   t.recent.end());
}

void LinkMeter::completed(const simgrid::s4u::Activity& activity) {
  auto it = flows_.find(activity.get_impl());
  if (it == flows_.end()) return;  // not a flow, or its other side already settled it
  finish(it->second, activity.get_start_time(), activity.get_finish_time());
  flows_.erase(it);
}

void LinkMeter::settle() {
  if (opened_ && !closed_) end_ = now();
  // In registration order: the sums must not depend on where the allocator put the activities.
  std::vector<Flow*> left;
  for (auto& [impl, flow] : flows_) left.push_back(&flow);
  std::sort(left.begin(), left.end(),
            [](const Flow* a, const Flow* b) { return a->order < b->order; });
  for (Flow* flow : left) {
    // Still moving or never matched (a run stopped early, an asynchronous pull nobody took).
    if (flow->comm->get_start_time() < 0) continue;
    if (flow->moved_at_close < 0) flow->moved_at_close = moved(*flow);
    finish(*flow, flow->comm->get_start_time(), now());
  }
  flows_.clear();
}

void LinkMeter::finish(const Flow& flow, double start, double end) {
  if (flow.moved_at_open < 0 || start < 0) return;  // ended before the window opened
  const double by_close = flow.moved_at_close >= 0 ? flow.moved_at_close : flow.bytes;
  const double bytes = by_close - flow.moved_at_open;
  const double from = std::max(start, start_);
  const double to = std::max(from, closed_ ? std::min(end, end_) : end);
  if (bytes <= 0 && to <= from) return;
  const bool detailed = end >= details_from_;
  auto add = [&](size_t index) {
    LinkTotals& t = totals_[index];
    t.flow_bytes += bytes;
    t.add_busy(from, to);
    if (detailed) t.recent.push_back({from, to, bytes});
  };
  if (flow.link != nullptr) {
    add(catalogue_.index.at(flow.link));
    return;
  }
  for (size_t index : route_indices(flow.from, flow.to)) add(index);
}

const std::vector<size_t>& LinkMeter::route_indices(const simgrid::s4u::Host* from,
                                                    const simgrid::s4u::Host* to) {
  auto [it, fresh] = routes_.try_emplace({from, to});
  if (fresh)
    for (const simgrid::s4u::Link* link : expected_route(platform_, from, to))
      it->second.push_back(catalogue_.index.at(link));
  return it->second;
}

}  // namespace ddpsim
