// Actors of the pipelined parameter servers of ps_sync.h. Per GPU: a sink (the permanent receiver
// of its pull mailbox) and, with g > 1 GPUs per node, a reduce and a gather actor that run the
// node's intra-node rings in the node's order. Per server: a sink (receiver of its push mailbox)
// and its engine threads, each working through a FIFO of sums and merges. A connection (GPU to
// server for pushes, server to GPU for pulls) sends its queue through a short-lived actor on the
// sender's host that exists while the queue is not empty, so actors grow with the connections
// busy at once, not with their number. Landed messages are handled by the sending actor (it knows
// when its put completed), which keeps every event O(1) in the number of GPUs.
#include "sim/engine/ps_sync.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>
#include <string>

#include "sim/collectives/group_ring.h"
#include "sim/cost/collective_formulas.h"
#include "sim/cost/comm_schedule.h"
#include "sim/cost/ps_partition.h"

namespace ddpsim {
namespace {

namespace sg4 = simgrid::s4u;

double now() { return sg4::Engine::get_clock(); }

class PsSync : public GradientSync {
 public:
  PsSync(RunContext* ctx, std::vector<PsServerPlace> servers, int mixed_colocated)
      : ctx_(ctx),
        s_(*ctx->scenario),
        pf_(*ctx->platform),
        servers_(std::move(servers)),
        p_(static_cast<int>(pf_.gpus.size())),
        g_(pf_.spec.gpus_per_node),
        k_(static_cast<int>(servers_.size())),
        units_(static_cast<int>(ctx->plan->buckets.size())),
        steps_(ctx->steps()),
        staleness_bound_(s_.sync.ps.mode == PsMode::kAsync ? s_.sync.ps.staleness : 0),
        priority_(s_.sync.schedule == CommSchedule::kPriority),
        forward_pulls_(s_.sync.ps.pull == PsPull::kForward) {
    static int instances = 0;
    prefix_ = "ps" + std::to_string(instances++) + ":";
    cut_partitions(mixed_colocated);
    // Under the symmetric scope (sim/cost/symmetry.h) the p_ simulated GPUs stand for the
    // cluster's: each summed push here stands for (P - g) / (p_ - g) of the cluster's (the first
    // g pushes of a partition are free, below).
    const int logical_p = pf_.logical_nodes * g_;
    sum_fold_ = logical_p > p_ ? static_cast<double>(logical_p - g_) / (p_ - g_) : 1.0;
    const ParameterServerSpec& ps = s_.sync.ps;
    const double threads = ps.server_threads;
    sum_seconds_per_byte_ =
        ps.server_memory_bandwidth > 0 ? threads / ps.server_memory_bandwidth : 0.0;
    update_seconds_per_byte_ = ps.update == PsUpdate::kServer
                                   ? update_flops_per_param(ps, s_.training.optimizer) /
                                         s_.sync.gradient_bytes / kServerUpdateFlopsPerSecond
                                   : 0.0;
    credit_ = s_.sync.credit > 0 ? s_.sync.credit
                                 : (priority_ ? 5 * partition_bytes_ : 0.0);  // 0: unlimited

    ranks_.resize(p_);
    for (int r = 0; r < p_; ++r) {
      RankState& rs = ranks_[r];
      rs.done = sg4::Semaphore::create(0);
      rs.mutex = sg4::Mutex::create();
      rs.changed = sg4::ConditionVariable::create();
      rs.back.assign(steps_, std::vector<char>(units_, 0));
      rs.units_back.assign(steps_, 0);
      rs.pulled.assign(steps_, std::vector<int>(units_, 0));
      rs.requested.assign(steps_, 0);
      rs.blocked.resize(steps_);
      rs.staleness.assign(steps_, 0);
      rs.started.assign(units_, 0.0);
      rs.spans.assign(units_, {0.0, 0.0});
      rs.pushes.resize(k_);
    }
    state_.resize(k_);
    for (int k = 0; k < k_; ++k) {
      ServerState& st = state_[k];
      st.pulls.resize(p_);
      st.threads.resize(ps.server_threads);
    }
    server_steps_.assign(steps_, {});
    for (int t = 0; t < steps_; ++t) {
      server_steps_[t].arrived.assign(parts_.size(), 0);
      server_steps_[t].summed.assign(parts_.size(), 0);
    }
    version_.assign(parts_.size(), -1);
    for (int k = 0; k < k_; ++k)
      for (int th = 0; th < ps.server_threads; ++th) {
        Thread& thread = state_[k].threads[th];
        thread.jobs = sg4::Semaphore::create(0);
        long expected = 0;
        for (size_t x = 0; x < parts_.size(); ++x)
          if (parts_[x].server == k && parts_[x].thread == th) expected += steps_ * (p_ + 1L);
        if (expected == 0) continue;
        sg4::Actor::create("ps-thread" + std::to_string(k) + "." + std::to_string(th),
                           servers_[k].host, [this, k, th, expected] { serve(k, th, expected); });
      }
    if (g_ > 1) {
      reduce_rings_ = std::make_unique<GroupRings>(ctx->transport.get(), GroupRings::nodes(pf_));
      gather_rings_ = std::make_unique<GroupRings>(ctx->transport.get(), GroupRings::nodes(pf_));
      nodes_.resize(pf_.spec.nodes);
      for (NodeState& node : nodes_) {
        node.ready.assign(steps_, std::vector<int>(units_, 0));
        node.back.assign(steps_, std::vector<int>(units_, 0));
      }
      for (int r = 0; r < p_; ++r) {
        ranks_[r].reduce_wake = sg4::Semaphore::create(0);
        ranks_[r].gather_wake = sg4::Semaphore::create(0);
        sg4::Actor::create("ps-reduce" + std::to_string(r), pf_.gpus[r], [this, r] { reduce(r); });
        sg4::Actor::create("ps-gather" + std::to_string(r), pf_.gpus[r], [this, r] { gather(r); });
      }
    }
    busy_.assign(p_, 0.0);
    unit_time_.assign(units_, 0.0);
    unit_calls_.assign(units_, 0);
  }

  void bucket_ready(int rank, int step, int unit) override {
    ranks_[rank].started[unit] = now();
    if (g_ == 1) {
      enqueue_unit(rank, step, unit);
      return;
    }
    NodeState& node = nodes_[pf_.node_of_rank(rank)];
    if (++node.ready[step][unit] < g_) return;
    node.reducible.push_back({step, unit});
    wake_node(rank, &RankState::reduce_wake);
  }

  void wait_synchronised(int rank, int step) override {
    if (gates_forward()) {
      if (forward_pulls_) request_pulls(rank, step);
      return;
    }
    if (units_ > 0) ranks_[rank].done->acquire();
  }

  bool gates_forward() const override { return priority_ || forward_pulls_; }

  void wait_layer(int rank, int step, int layer) override {
    RankState& rs = ranks_[rank];
    const std::vector<int>& need = ctx_->plan->layer_buckets[layer];
    std::unique_lock<sg4::Mutex> lock(*rs.mutex);
    for (int u : need)
      while (!rs.back[step][u]) rs.changed->wait(lock);
  }

  bool worker_runs_optimizer() const override { return s_.sync.ps.update == PsUpdate::kWorker; }
  int peer_step(int step) const override { return step - staleness_bound_; }
  double comm_busy(int rank) const override { return busy_[rank]; }

  std::vector<BucketReport> bucket_reports() const override {
    const std::string name =
        "ps (" + std::to_string(k_) + " servers, " +
        (s_.sync.ps.mode == PsMode::kAsync ? "async, staleness " + std::to_string(staleness_bound_)
                                           : std::string("sync")) +
        ", " + std::to_string(parts_.size()) + " partitions)";
    std::vector<BucketReport> out;
    const auto& buckets = ctx_->plan->buckets;
    for (int u = 0; u < units_; ++u)
      out.push_back({u, static_cast<int>(buckets[u].tensors.size()), buckets[u].bytes, name,
                     unit_calls_[u] ? unit_time_[u] / unit_calls_[u] : 0.0});
    return out;
  }

  void append_trace(std::vector<TraceEvent>* out) const override {
    out->insert(out->end(), trace_.begin(), trace_.end());
  }

  void report(SimulationResult* result) const override {
    const int steps = ctx_->steps(), warmup = ctx_->warmup();
    double sum = 0;
    int count = 0, most = 0;
    for (int r = 0; r < p_; ++r)
      for (int t = warmup; t < std::min(steps, ctx_->workers[r].steps_done); ++t) {
        sum += ranks_[r].staleness[t];
        most = std::max(most, ranks_[r].staleness[t]);
        ++count;
      }
    result->staleness_max = most;
    result->staleness_mean = count ? sum / count : 0;
    if (s_.sync.ps.mode != PsMode::kAsync || result->partial) return;
    // No global step: every worker trains at its own pace, throughput is the sum of their rates.
    const TrainingSpec& tr = s_.training;
    double rate = 0;
    for (const WorkerStats& w : ctx_->workers) {
      const double window = w.step_end[steps - 1] - (warmup > 0 ? w.step_end[warmup - 1] : 0.0);
      if (window > 0)
        rate += static_cast<double>(steps - warmup) * tr.batch_per_gpu * tr.gradient_accumulation /
                window;
    }
    if (rate <= 0) return;
    result->samples_per_second = rate;
    result->iteration_time = result->global_batch / rate;
    result->comm_share = result->comm_time / result->iteration_time;
    result->exposed_comm_share = result->breakdown.exposed_comm / result->iteration_time;
    result->straggler_share = result->breakdown.straggler_wait / result->iteration_time;
  }

 private:
  struct Part {
    int unit = 0;
    double bytes = 0;  // the whole partition; each GPU of a node moves bytes / g of it
    int server = 0, thread = 0;
    int layer = 0;  // priority: the unit's lowest layer
  };
  struct Message {
    int part = 0, step = 0, rank = 0;
  };
  // One direction between two hosts: messages go one after the other (ps-lite's per-connection
  // order), sent by an actor that lives while the queue is not empty.
  struct Connection {
    std::deque<Message> queue;
    bool busy = false;
    sg4::SemaphorePtr wake = sg4::Semaphore::create(0);  // a message queued while it waits
  };
  struct Thread {
    sg4::SemaphorePtr jobs;
    std::deque<Message> queue;  // rank < 0: merge of (step, part)
  };
  struct ServerState {
    std::vector<Connection> pulls;  // [rank]
    std::vector<Thread> threads;
    std::vector<std::deque<Message>> waiting;  // async: pulls waiting for a version, per part
  };
  struct ServerStep {
    std::vector<int> arrived, summed;  // [part]
  };
  struct RankState {
    sg4::SemaphorePtr done, reduce_wake, gather_wake;
    sg4::MutexPtr mutex;
    sg4::ConditionVariablePtr changed;
    std::vector<std::vector<char>> back;           // [step][unit]
    std::vector<int> units_back;                   // [step]
    std::vector<std::vector<int>> pulled;          // [step][unit]: partitions pulled
    std::vector<char> requested;                   // [step]: pull forward, pulls requested
    std::vector<std::vector<int>> blocked;         // [step]: parts summed before the request
    std::vector<int> staleness;                    // [step]
    std::vector<double> started;                   // [unit]: ready time, current step
    std::vector<std::pair<double, double>> spans;  // [unit]: ready .. back, current step
    std::vector<Connection> pushes;                // [server]
    std::vector<Message> queued;                   // waiting for credit (fifo or priority order)
    double in_flight = 0;                          // push bytes sent, not yet landed
    int transfers = 0;                             // its pushes, pulls and rings under way
    size_t reduce_cursor = 0, gather_cursor = 0;
  };
  struct NodeState {
    std::vector<std::vector<int>> ready, back;   // [step][unit]: local GPUs with it
    std::vector<std::pair<int, int>> reducible;  // (step, unit) ready everywhere, not yet ordered
    std::vector<std::pair<int, int>> reduce_order, gather_order;
  };

  // ---------------------------------------------------------------- partitions

  void cut_partitions(int mixed_colocated) {
    partition_bytes_ = byteps_partition_bytes(s_.sync.partition, g_);
    const auto& buckets = ctx_->plan->buckets;
    std::vector<uint64_t> keys;
    std::vector<double> bytes;
    unit_parts_.resize(units_);
    for (int u = 0; u < units_; ++u) {
      // Declared in parameter order: the reverse of the order backward produces the units.
      const int declared = units_ - 1 - u;
      const std::vector<double> sizes = partition_sizes(buckets[u].bytes, partition_bytes_);
      for (size_t j = 0; j < sizes.size(); ++j) {
        unit_parts_[u].push_back(static_cast<int>(parts_.size()));
        parts_.push_back({u, sizes[j], 0, 0, buckets[u].ready_layer});
        keys.push_back(byteps_key(declared, static_cast<int>(j)));
        bytes.push_back(sizes[j]);
      }
    }
    std::vector<double> shares;
    for (const PsServerPlace& place : servers_) shares.push_back(place.share);
    const std::vector<int> server =
        place_keys(keys, bytes, s_.sync.ps.key_placement, shares, mixed_colocated);
    // A server's engine threads take keys least-loaded by bytes at first sight.
    std::vector<std::vector<double>> thread_load(k_,
                                                 std::vector<double>(s_.sync.ps.server_threads));
    for (size_t x = 0; x < parts_.size(); ++x) {
      parts_[x].server = server[x];
      std::vector<double>& load = thread_load[server[x]];
      const auto least = std::min_element(load.begin(), load.end());
      parts_[x].thread = static_cast<int>(least - load.begin());
      *least += bytes[x];
    }
  }

  double slice(int part) const { return parts_[part].bytes / g_; }
  bool goes_before(const Message& a, const Message& b) const {
    if (a.step != b.step) return a.step < b.step;
    return before_in_priority(parts_[a.part].layer, a.part, parts_[b.part].layer, b.part);
  }

  // ---------------------------------------------------------------- connections

  // Appends to a connection (in order, or by priority) and starts its sender when idle.
  void send(Connection* c, const Message& m, bool ordered, bool push) {
    if (ordered) {
      auto at = std::find_if(c->queue.begin(), c->queue.end(),
                             [&](const Message& q) { return goes_before(m, q); });
      c->queue.insert(at, m);
    } else {
      c->queue.push_back(m);
    }
    if (c->busy) {
      c->wake->release();
      return;
    }
    c->busy = true;
    const int k = parts_[m.part].server;
    sg4::Host* from = push ? pf_.gpus[m.rank] : servers_[k].host;
    sg4::Actor::create(prefix_ + (push ? "push" : "pull"), from,
                       [this, c, push] { run_connection(c, push); });
  }

  // Sends the queue back to back (a message's bytes start as soon as the previous one's have
  // left, as TCP and RDMA pipeline them) and delivers each message the connection's latency after
  // its last byte: the actor waits for the transfer in flight or for the next delivery, whichever
  // comes first.
  void run_connection(Connection* c, bool push) {
    Transport* transport = ctx_->transport.get();
    sg4::CommPtr comm;
    Message sending;
    std::deque<std::pair<double, Message>> delivering;  // (when, message), in order
    while (!c->queue.empty() || comm || !delivering.empty()) {
      if (!comm && !c->queue.empty()) {
        sending = c->queue.front();
        c->queue.pop_front();
        sg4::Host* gpu = pf_.gpus[sending.rank];
        sg4::Host* server = servers_[parts_[sending.part].server].host;
        comm = transport->isend_to(push ? gpu : server, push ? server : gpu, slice(sending.part));
        transferring(sending.rank, 1);
      }
      // A negative timeout would mean "forever" to SimGrid.
      const double timeout =
          delivering.empty() ? -1 : std::max(0.0, delivering.front().first - now());
      if (comm) {
        if (sg4::Comm::wait_any_for({comm}, timeout) == 0) {
          sg4::Host* gpu = pf_.gpus[sending.rank];
          sg4::Host* server = servers_[parts_[sending.part].server].host;
          delivering.emplace_back(now() + message_latency(pf_, gpu, server), sending);
          comm = nullptr;
          transferring(sending.rank, -1);
        }
      } else if (timeout > 0) {
        c->wake->acquire_timeout(timeout);  // until the next delivery, or a new message
      }
      while (!delivering.empty() && delivering.front().first <= now() + 1e-12) {
        const Message m = delivering.front().second;
        delivering.pop_front();
        if (push)
          push_landed(m);
        else
          pull_landed(m);
      }
    }
    c->busy = false;
  }

  // ---------------------------------------------------------------- worker side

  // A unit is reduced inside the node (or ready on a single-GPU node): its partitions queue.
  void enqueue_unit(int rank, int step, int unit) {
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

  // Simcalls (an actor created, a semaphore released) let other actors run before they return:
  // every container change happens before the first of them, and no index or iterator lives
  // across one.
  void release_pushes(int rank) {
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

  void wake_node(int rank, sg4::SemaphorePtr RankState::*wake) {
    const int node = pf_.node_of_rank(rank);
    for (int l = 0; l < g_; ++l) (ranks_[node * g_ + l].*wake)->release();
  }

  // The node's intra-node reduce-scatters, one unit at a time in the node's order: the first of
  // its GPUs to be free picks the next among the units ready on every GPU of the node.
  void reduce(int rank) {
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

  // The node's all-gathers, in the order units came back on every GPU of the node.
  void gather(int rank) {
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

  bool unit_before(std::pair<int, int> a, std::pair<int, int> b) const {
    if (a.first != b.first) return a.first < b.first;
    if (!priority_) return a.second < b.second;
    const auto& buckets = ctx_->plan->buckets;
    return before_in_priority(buckets[a.second].ready_layer, a.second,
                              buckets[b.second].ready_layer, b.second);
  }
  uint64_t tag(int step, int unit) const {
    return static_cast<uint64_t>(step) * units_ + static_cast<uint64_t>(unit);
  }
  void pull_landed(const Message& m) {
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

  void unit_back(int rank, int step, int unit) {
    RankState& rs = ranks_[rank];
    rs.spans[unit] = {rs.started[unit], now()};
    if (ctx_->traced(rank, step))
      trace_.push_back(
          {rank, "comm", "push/pull bucket " + std::to_string(unit), rs.started[unit], now()});
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

  // Compute slows while its GPU moves gradients (compute.overlap_slowdown).
  void transferring(int rank, int delta) {
    if (!ctx_->interference) return;
    int& n = ranks_[rank].transfers;
    n += delta;
    if ((delta > 0 && n == delta) || n == 0) ctx_->interference->set_communicating(rank, n > 0);
  }

  static double union_length(std::vector<std::pair<double, double>> spans) {
    std::sort(spans.begin(), spans.end());
    double total = 0, end = -1e300;
    for (const auto& [a, b] : spans) {
      const double from = std::max(a, end);
      if (b > from) total += b - from;
      end = std::max(end, b);
    }
    return total;
  }

  // pull: forward. The worker starts its next step: its summed partitions go out by layer.
  void request_pulls(int rank, int step) {
    RankState& rs = ranks_[rank];
    rs.requested[step] = 1;
    std::vector<int> parts = std::move(rs.blocked[step]);
    std::sort(parts.begin(), parts.end(), [&](int a, int b) {
      return before_in_priority(parts_[a].layer, a, parts_[b].layer, b);
    });
    for (int x : parts) send_pull(x, step, rank);
  }

  // ---------------------------------------------------------------- server side

  void push_landed(const Message& m) {
    RankState& rs = ranks_[m.rank];
    rs.in_flight -= slice(m.part);
    if (!rs.queued.empty()) release_pushes(m.rank);
    const Part& part = parts_[m.part];
    ++server_steps_[m.step].arrived[m.part];
    Thread& thread = state_[part.server].threads[part.thread];
    thread.queue.push_back(m);
    thread.jobs->release();
    if (staleness_bound_ > 0) {  // async: this GPU's own pull may be due already
      ServerState& st = state_[part.server];
      if (st.waiting.empty()) st.waiting.resize(parts_.size());
      st.waiting[m.part].push_back(m);
      release_waiting(m.part);
    }
  }

  // One engine thread: sums and merges of its keys, in arrival order.
  void serve(int k, int th, long expected) {
    Thread& thread = state_[k].threads[th];
    for (long done = 0; done < expected; ++done) {
      thread.jobs->acquire();
      const Message m = thread.queue.front();
      thread.queue.pop_front();
      const Part& part = parts_[m.part];
      ServerStep& ss = server_steps_[m.step];
      if (m.rank >= 0) {
        // The first g pushes of a partition are taken as they are (BytePS's zero-copy first
        // push, one per slice); every later one is added: two reads and a write per byte.
        if (ss.summed[m.part] >= g_)
          busy_for(3 * slice(m.part) * sum_seconds_per_byte_ * sum_fold_);
        if (++ss.summed[m.part] == p_) {
          thread.queue.push_back({m.part, m.step, -1});
          thread.jobs->release();
        }
        continue;
      }
      busy_for(2 * part.bytes * sum_seconds_per_byte_ + part.bytes * update_seconds_per_byte_);
      version_[m.part] = m.step;
      if (staleness_bound_ > 0) {
        release_waiting(m.part);
      } else {
        for (int r = 0; r < p_; ++r) pull_due(m.part, m.step, r);
      }
    }
  }

  static void busy_for(double seconds) {
    if (seconds > 0) sg4::this_actor::sleep_for(seconds);
  }

  // Async: pulls whose own push has landed and whose version the server now holds.
  void release_waiting(int part) {
    std::deque<Message>& waiting = state_[parts_[part].server].waiting[part];
    std::vector<Message> due;
    for (auto it = waiting.begin(); it != waiting.end();) {
      if (version_[part] < it->step - staleness_bound_) {
        ++it;
        continue;
      }
      due.push_back(*it);
      it = waiting.erase(it);
    }
    for (const Message& m : due) pull_due(m.part, m.step, m.rank);
  }

  void pull_due(int part, int step, int rank) {
    RankState& rs = ranks_[rank];
    if (forward_pulls_ && !rs.requested[step]) {
      rs.blocked[step].push_back(part);
      return;
    }
    send_pull(part, step, rank);
  }

  void send_pull(int part, int step, int rank) {
    int& stale = ranks_[rank].staleness[step];
    stale = std::max(stale, step - version_[part]);
    send(&state_[parts_[part].server].pulls[rank], {part, step, rank}, priority_ || forward_pulls_,
         false);
  }

  RunContext* ctx_;
  const Scenario& s_;
  const ClusterPlatform& pf_;
  std::vector<PsServerPlace> servers_;
  int p_, g_, k_, units_, steps_;
  int staleness_bound_;
  bool priority_, forward_pulls_;
  std::string prefix_;
  double partition_bytes_ = 0, credit_ = 0;
  double sum_seconds_per_byte_ = 0, update_seconds_per_byte_ = 0;
  double sum_fold_ = 1;  // cluster pushes per simulated push (symmetric scope)
  std::vector<Part> parts_;
  std::vector<std::vector<int>> unit_parts_;
  std::vector<RankState> ranks_;
  std::vector<ServerState> state_;
  std::vector<ServerStep> server_steps_;
  std::vector<int> version_;  // [part]: last step summed, -1 = none
  std::vector<NodeState> nodes_;
  std::unique_ptr<GroupRings> reduce_rings_, gather_rings_;
  std::vector<double> busy_, unit_time_;
  std::vector<int> unit_calls_;
  std::vector<TraceEvent> trace_;
};

}  // namespace

std::vector<PsServerPlace> ps_layout(const Scenario& s, const ClusterPlatform& pf) {
  if (s.sync.ps.placement == PsPlacement::kByteps) return byteps_layout(pf, s.sync.ps.servers);
  std::vector<PsServerPlace> out;
  const int k = s.sync.ps.servers;
  const auto& hosts = s.sync.ps.placement == PsPlacement::kDedicated ? pf.servers : pf.node_cpus;
  if (k < 1 || k > static_cast<int>(hosts.size()))
    throw std::invalid_argument("parameter servers: " + std::to_string(k) + " requested, " +
                                std::to_string(hosts.size()) + " hosts available");
  for (int i = 0; i < k; ++i) out.push_back({hosts[i], 1.0});
  return out;
}

std::vector<PsServerPlace> byteps_layout(const ClusterPlatform& pf, int cpu_servers) {
  const int n = pf.spec.nodes;
  if (cpu_servers > static_cast<int>(pf.servers.size()))
    throw std::invalid_argument("byteps_layout: not enough dedicated server hosts");
  const BytepsShares shares = byteps_shares(n, cpu_servers);
  std::vector<PsServerPlace> out;
  for (int node = 0; node < n; ++node) out.push_back({pf.node_cpus[node], shares.colocated});
  for (int i = 0; i < cpu_servers; ++i) out.push_back({pf.servers[i], shares.cpu});
  return out;
}

double update_flops_per_param(const ParameterServerSpec& ps, Optimizer optimizer) {
  if (ps.update_flops_per_param > 0) return ps.update_flops_per_param;
  switch (optimizer) {
    case Optimizer::kSgd:
      return 2;  // w -= lr * g
    case Optimizer::kMomentum:
      return 4;  // v = mu * v + g; w -= lr * v
    case Optimizer::kAdam:
      return 12;  // two moment updates, bias correction, sqrt, divide, step
  }
  return 2;
}

std::unique_ptr<GradientSync> make_ps_sync(RunContext* ctx, std::vector<PsServerPlace> servers,
                                           int mixed_colocated) {
  return std::make_unique<PsSync>(ctx, std::move(servers), mixed_colocated);
}

}  // namespace ddpsim
