// The GPU side of the parameter servers (ps_engine.h): a ready unit reduce-scattered inside the
// node (g > 1), its partitions queued and pushed under the node's credit, pulled slices landing,
// the node's all-gather, a unit back on the GPU, and the compute slowdown while it transfers.
#include "sim/engine/ps_engine.h"

namespace ddpsim {
namespace ps_detail {

void PsSync::enqueue_unit(int rank, int step, int unit) {
  if (lanes_ && pf_.local_of_rank(rank) != 0) return;  // the node's first GPU sends for it
  RankState& rs = ranks_[rank];
  for (int x : unit_parts_[unit]) {
    const Message m{x, step, rank};
    if (priority_) {
      auto at = std::find_if(rs.queued.begin(), rs.queued.end(),
                             [&](const Message& q) { return goes_before(m, q); });
      rs.queued.insert(at, m);
    } else {
      rs.queued.push_back(m);
    }
  }
  release_pushes(rank);
}

void PsSync::release_pushes(int rank) {
  RankState& rs = ranks_[rank];
  const double limit = credit_ / g_;
  size_t taken = 0;
  for (; taken < rs.queued.size(); ++taken) {
    const double bytes = slice(rs.queued[taken].part);
    if (limit > 0 && rs.in_flight > 0 && rs.in_flight + bytes > limit) break;
    rs.in_flight += bytes;
  }
  const std::vector<Message> go(rs.queued.begin(), rs.queued.begin() + static_cast<long>(taken));
  rs.queued.erase(rs.queued.begin(), rs.queued.begin() + static_cast<long>(taken));
  for (const Message& m : go) send(&rs.pushes[parts_[m.part].server], m, priority_, true);
}

void PsSync::wake_node(int rank, sg4::SemaphorePtr RankState::*wake) {
  const int node = pf_.node_of_rank(rank);
  for (int l = 0; l < g_; ++l) (ranks_[node * g_ + l].*wake)->release();
}

void PsSync::reduce(int rank) {
  RankState& rs = ranks_[rank];
  NodeState& node = nodes_[pf_.node_of_rank(rank)];
  const auto& buckets = ctx_->plan->buckets;
  for (int n = 0; n < steps_ * units_; ++n) {
    while (rs.reduce_cursor >= node.reduce_order.size() && node.reducible.empty())
      rs.reduce_wake->acquire();
    if (rs.reduce_cursor >= node.reduce_order.size()) {
      auto best = node.reducible.begin();
      for (auto it = node.reducible.begin(); it != node.reducible.end(); ++it)
        if (unit_before(*it, *best)) best = it;
      node.reduce_order.push_back(*best);
      node.reducible.erase(best);
    }
    const auto [step, unit] = node.reduce_order[rs.reduce_cursor++];
    transferring(rank, 1);
    reduce_rings_->phase(rank, tag(step, unit), (g_ - 1.0) / g_ * buckets[unit].bytes, g_ - 1);
    transferring(rank, -1);
    enqueue_unit(rank, step, unit);
  }
}

void PsSync::gather(int rank) {
  RankState& rs = ranks_[rank];
  NodeState& node = nodes_[pf_.node_of_rank(rank)];
  const auto& buckets = ctx_->plan->buckets;
  for (int n = 0; n < steps_ * units_; ++n) {
    while (rs.gather_cursor >= node.gather_order.size()) rs.gather_wake->acquire();
    const auto [step, unit] = node.gather_order[rs.gather_cursor++];
    transferring(rank, 1);
    gather_rings_->phase(rank, tag(step, unit), (g_ - 1.0) / g_ * buckets[unit].bytes, g_ - 1);
    transferring(rank, -1);
    unit_back(rank, step, unit);
  }
}

bool PsSync::unit_before(std::pair<int, int> a, std::pair<int, int> b) const {
  if (a.first != b.first) return a.first < b.first;
  if (!priority_) return a.second < b.second;
  const auto& buckets = ctx_->plan->buckets;
  return before_in_priority(buckets[a.second].ready_layer, a.second, buckets[b.second].ready_layer,
                            b.second);
}

uint64_t PsSync::tag(int step, int unit) const {
  return static_cast<uint64_t>(step) * units_ + static_cast<uint64_t>(unit);
}

void PsSync::pull_landed(const Message& m) {
  RankState& rs = ranks_[m.rank];
  const int unit = parts_[m.part].unit;
  if (++rs.pulled[m.step][unit] < static_cast<int>(unit_parts_[unit].size())) return;
  if (g_ == 1) {
    unit_back(m.rank, m.step, unit);
    return;
  }
  NodeState& node = nodes_[pf_.node_of_rank(m.rank)];
  if (++node.back[m.step][unit] < g_) return;
  node.gather_order.push_back({m.step, unit});
  wake_node(m.rank, &RankState::gather_wake);
}

void PsSync::unit_back(int rank, int step, int unit) {
  RankState& rs = ranks_[rank];
  rs.spans[unit] = {rs.started[unit], now()};
  if (ctx_->traced(rank, step))
    push_step_event(
        trace_, {rank, "comm", "push/pull bucket " + std::to_string(unit), rs.started[unit], now()},
        step);
  if (ctx_->measured(step) && rank == 0) {
    unit_time_[unit] += now() - rs.started[unit];
    ++unit_calls_[unit];
  }
  {
    std::unique_lock<sg4::Mutex> lock(*rs.mutex);
    rs.back[step][unit] = 1;
    rs.changed->notify_all();
  }
  if (++rs.units_back[step] < units_) return;
  if (ctx_->measured(step)) busy_[rank] += union_length(rs.spans);
  rs.done->release();
}

void PsSync::transferring(int rank, int delta) {
  if (!ctx_->interference) return;
  int& n = ranks_[rank].transfers;
  n += delta;
  if ((delta > 0 && n == delta) || n == 0) ctx_->interference->set_communicating(rank, n > 0);
}

double PsSync::union_length(std::vector<std::pair<double, double>> spans) {
  std::sort(spans.begin(), spans.end());
  double total = 0, end = -1e300;
  for (const auto& [a, b] : spans) {
    const double from = std::max(a, end);
    if (b > from) total += b - from;
    end = std::max(end, b);
  }
  return total;
}

void PsSync::request_pulls(int rank, int step) {
  RankState& rs = ranks_[rank];
  rs.requested[step] = 1;
  std::vector<int> parts = std::move(rs.blocked[step]);
  std::sort(parts.begin(), parts.end(), [&](int a, int b) {
    return before_in_priority(parts_[a].layer, a, parts_[b].layer, b);
  });
  for (int x : parts) send_pull(x, step, rank);
}

}  // namespace ps_detail
}  // namespace ddpsim
