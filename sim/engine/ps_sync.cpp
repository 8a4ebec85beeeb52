// Actors of the parameter-server model of ps_sync.h. Per GPU a push actor (its communication
// stream: intra-node reduce-scatter, then pushes, bucket by bucket) and a pull actor (posts the
// step's pull receives, waits for each bucket's pulls, then the intra-node all-gather). Per server
// one actor working through a FIFO of jobs (apply an update, send a pull), so the server's CPU
// does one thing at a time. The server is the permanent receiver of its push mailboxes: pushes
// start at once, whatever the server is doing (a NIC receives without the CPU), and the pushing
// GPU reports each arrival; pulls are detached sends the GPU side waits for. Nothing waits on
// O(p) activities at once: a step is O(p * servers * buckets) events, but all p flows of a
// bucket meet on each server's link, where SimGrid's sharing solver pays O(p) per event
// (measured: 2 s per step at 256 GPUs, 27 s at 1024 GPUs, 16 servers, ResNet-50).
#include "sim/engine/ps_sync.h"

#include <algorithm>
#include <cmath>
#include <deque>
#include <stdexcept>
#include <string>

#include "sim/collectives/group_ring.h"
#include "sim/cost/collective_formulas.h"

namespace ddpsim {
namespace {

namespace sg4 = simgrid::s4u;

double now() { return sg4::Engine::get_clock(); }

// Detached pulls carry this token (SimGrid needs a payload; receivers drop it).
char pull_token;

class PsSync : public GradientSync {
 public:
  PsSync(RunContext* ctx, std::vector<PsServerPlace> servers)
      : ctx_(ctx),
        pf_(*ctx->platform),
        servers_(std::move(servers)),
        p_(static_cast<int>(pf_.gpus.size())),
        g_(pf_.spec.gpus_per_node),
        buckets_(static_cast<int>(ctx->plan->buckets.size())),
        staleness_bound_(
            ctx->scenario->sync.ps.mode == PsMode::kAsync ? ctx->scenario->sync.ps.staleness : 0) {
    static int instances = 0;
    prefix_ = "ps" + std::to_string(instances++) + ":";
    const Scenario& s = *ctx->scenario;
    std::vector<double> shares;
    for (const PsServerPlace& place : servers_) shares.push_back(place.share);
    bytes_ = partition_buckets(ctx->plan->buckets, s.sync.ps.chunk_bytes, shares);
    servers_of_.resize(buckets_);
    for (int b = 0; b < buckets_; ++b)
      for (size_t k = 0; k < servers_.size(); ++k)
        if (bytes_[b][k] > 0) servers_of_[b].push_back(static_cast<int>(k));
    seconds_per_byte_ = update_flops_per_param(s.sync.ps, s.training.optimizer) /
                        s.sync.gradient_bytes / kServerUpdateFlopsPerSecond;

    if (g_ > 1) {
      reduce_rings_ = std::make_unique<GroupRings>(ctx->transport.get(), GroupRings::nodes(pf_));
      gather_rings_ = std::make_unique<GroupRings>(ctx->transport.get(), GroupRings::nodes(pf_));
    }
    const int steps = ctx->steps();
    ready_.resize(p_);
    done_.resize(p_);
    started_.assign(p_, std::vector<double>(buckets_, 0.0));
    staleness_.assign(p_, std::vector<int>(steps, 0));
    busy_.assign(p_, 0.0);
    bucket_time_.assign(buckets_, 0.0);
    bucket_calls_.assign(buckets_, 0);
    for (int r = 0; r < p_; ++r) {
      ready_[r] = sg4::Semaphore::create(0);
      done_[r] = sg4::Semaphore::create(0);
      sg4::Actor::create("ps-push" + std::to_string(r), pf_.gpus[r], [this, r] { push(r); });
      sg4::Actor::create("ps-pull" + std::to_string(r), pf_.gpus[r], [this, r] { pull(r); });
    }
    state_.resize(servers_.size());
    for (size_t k = 0; k < servers_.size(); ++k) {
      ServerState& st = state_[k];
      st.jobs = sg4::Semaphore::create(0);
      st.version.assign(buckets_, -1);
      st.arrived.assign(buckets_, std::vector<int>(steps, 0));
      st.waiting.resize(buckets_);
      sg4::ActorPtr actor = sg4::Actor::create("ps-server" + std::to_string(k), servers_[k].host,
                                               [this, k] { serve(static_cast<int>(k)); });
      for (int r = 0; r < p_; ++r) sg4::Mailbox::by_name(push_box(k, r))->set_receiver(actor);
    }
  }

  void bucket_ready(int rank, int, int) override { ready_[rank]->release(); }
  void wait_synchronised(int rank, int) override { done_[rank]->acquire(); }
  bool worker_runs_optimizer() const override { return false; }
  double comm_busy(int rank) const override { return busy_[rank]; }

  std::vector<BucketReport> bucket_reports() const override {
    const Scenario& s = *ctx_->scenario;
    const std::string name =
        "ps (" + std::to_string(servers_.size()) + " servers, " +
        (s.sync.ps.mode == PsMode::kAsync ? "async, staleness " + std::to_string(staleness_bound_)
                                          : std::string("sync")) +
        ")";
    std::vector<BucketReport> out;
    const auto& buckets = ctx_->plan->buckets;
    for (int b = 0; b < buckets_; ++b)
      out.push_back({b, static_cast<int>(buckets[b].tensors.size()), buckets[b].bytes, name,
                     bucket_calls_[b] ? bucket_time_[b] / bucket_calls_[b] : 0.0});
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
        sum += staleness_[r][t];
        most = std::max(most, staleness_[r][t]);
        ++count;
      }
    result->staleness_max = most;
    result->staleness_mean = count ? sum / count : 0;
    if (ctx_->scenario->sync.ps.mode != PsMode::kAsync || result->partial) return;
    // No global step: every worker trains at its own pace, throughput is the sum of their rates.
    const TrainingSpec& tr = ctx_->scenario->training;
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
  }

 private:
  struct Job {
    bool update = false;
    int bucket = 0, step = 0, rank = 0;  // rank: pulls only
  };
  struct ServerState {
    sg4::SemaphorePtr jobs;  // one release per queued job
    std::deque<Job> queue;
    std::vector<int> version;                              // [bucket]: last step applied, -1 = none
    std::vector<std::vector<int>> arrived;                 // [bucket][step]: pushes in
    std::vector<std::deque<std::pair<int, int>>> waiting;  // [bucket]: (rank, step) to pull
  };

  std::string push_box(size_t server, int rank) const {
    return prefix_ + "push:" + std::to_string(server) + "<" + std::to_string(rank);
  }
  std::string pull_box(size_t server, int rank) const {
    return prefix_ + "pull:" + std::to_string(server) + ">" + std::to_string(rank);
  }
  uint64_t tag(int step, int bucket) const {
    return static_cast<uint64_t>(step) * buckets_ + bucket;
  }
  double slice(int bucket, int server) const { return bytes_[bucket][server] / g_; }
  double alpha(int rank, int bucket) const {
    double a = 0;
    for (int k : servers_of_[bucket])
      a = std::max(a, message_latency(pf_, pf_.gpus[rank], servers_[k].host));
    return a;
  }

  // Simcalls (a semaphore release included) let other actors run before they return: every
  // container change happens before the releases, and no iterator lives across one.
  void enqueue(int k, const std::vector<Job>& jobs) {
    ServerState& st = state_[k];
    st.queue.insert(st.queue.end(), jobs.begin(), jobs.end());
    for (size_t i = 0; i < jobs.size(); ++i) st.jobs->release();
  }

  // Runs in the pushing GPU's actor when its push of (step, bucket) has reached server k.
  void arrived(int k, int rank, int step, int bucket) {
    ServerState& st = state_[k];
    st.waiting[bucket].emplace_back(rank, step);
    std::vector<Job> jobs;
    if (++st.arrived[bucket][step] == p_) jobs.push_back({true, bucket, step, 0});
    take_pulls(k, bucket, &jobs);
    enqueue(k, jobs);
  }

  // Moves the pulls of `bucket` that the staleness rule allows from waiting to `jobs`.
  void take_pulls(int k, int bucket, std::vector<Job>* jobs) {
    ServerState& st = state_[k];
    auto& waiting = st.waiting[bucket];
    for (auto it = waiting.begin(); it != waiting.end();) {
      if (st.version[bucket] < it->second - staleness_bound_) {
        ++it;
        continue;
      }
      jobs->push_back({false, bucket, it->second, it->first});
      it = waiting.erase(it);
    }
  }

  // A GPU's communication stream: buckets in order, each reduced inside the node then pushed.
  void push(int rank) {
    const auto& buckets = ctx_->plan->buckets;
    Transport* transport = ctx_->transport.get();
    for (int t = 0; t < ctx_->steps(); ++t) {
      for (int b = 0; b < buckets_; ++b) {
        ready_[rank]->acquire();
        started_[rank][b] = now();
        if (ctx_->interference) ctx_->interference->set_communicating(rank, true);
        if (reduce_rings_)
          reduce_rings_->phase(rank, tag(t, b), (g_ - 1.0) / g_ * buckets[b].bytes, g_ - 1);
        const double a = alpha(rank, b);
        if (a > 0) sg4::this_actor::sleep_for(a);
        std::vector<sg4::CommPtr> sends;
        std::vector<int> to;
        for (int k : servers_of_[b]) {
          sends.push_back(transport->isend(pf_.gpus[rank], servers_[k].host, push_box(k, rank),
                                           slice(b, k), /*add_latency=*/false));
          to.push_back(k);
        }
        while (!sends.empty()) {  // each server learns of its push when it lands
          const auto i = static_cast<size_t>(sg4::Comm::wait_any(sends));
          arrived(to[i], rank, t, b);
          sends.erase(sends.begin() + i);
          to.erase(to.begin() + i);
        }
        if (ctx_->interference) ctx_->interference->set_communicating(rank, false);
      }
    }
  }

  // Waits for each bucket's pulls, all-gathers it in the node, then releases the worker.
  void pull(int rank) {
    const auto& buckets = ctx_->plan->buckets;
    Transport* transport = ctx_->transport.get();
    std::vector<std::pair<double, double>> spans(buckets_);
    for (int t = 0; t < ctx_->steps(); ++t) {
      // Posted before this worker can push: a pull is sent only after its push arrived.
      std::vector<std::vector<sg4::CommPtr>> receives(buckets_);
      for (int b = 0; b < buckets_; ++b)
        for (int k : servers_of_[b]) receives[b].push_back(transport->irecv(pull_box(k, rank)));
      for (int b = 0; b < buckets_; ++b) {
        sg4::Comm::wait_all(receives[b]);
        const double a = alpha(rank, b);
        if (a > 0) sg4::this_actor::sleep_for(a);
        if (gather_rings_)
          gather_rings_->phase(rank, tag(t, b), (g_ - 1.0) / g_ * buckets[b].bytes, g_ - 1);
        spans[b] = {started_[rank][b], now()};
        if (ctx_->traced(rank, t))
          trace_.push_back(
              {rank, "comm", "push/pull bucket " + std::to_string(b), spans[b].first, now()});
      }
      if (ctx_->measured(t)) {
        busy_[rank] += union_length(spans);
        if (rank == 0)
          for (int b = 0; b < buckets_; ++b) {
            bucket_time_[b] += spans[b].second - spans[b].first;
            ++bucket_calls_[b];
          }
      }
      done_[rank]->release();
    }
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

  // One server's CPU: updates and pull sends in the order they became due.
  void serve(int k) {
    ServerState& st = state_[k];
    Transport* transport = ctx_->transport.get();
    sg4::Host* host = servers_[k].host;
    long updates = 0, pulls = 0;
    for (int b = 0; b < buckets_; ++b)
      if (bytes_[b][k] > 0) updates += ctx_->steps();
    long pulls_due = updates * p_;
    while (updates > 0 || pulls < pulls_due) {
      st.jobs->acquire();
      const Job job = st.queue.front();
      st.queue.pop_front();
      if (job.update) {
        const double seconds = bytes_[job.bucket][k] * seconds_per_byte_;
        if (seconds > 0) sg4::this_actor::execute(seconds * host->get_speed());
        st.version[job.bucket] = job.step;
        --updates;
        // The step's pushes have all landed: take them out of the permanent mailboxes.
        for (int r = 0; r < p_; ++r) transport->irecv(push_box(k, r))->wait();
        std::vector<Job> jobs;
        take_pulls(k, job.bucket, &jobs);
        enqueue(k, jobs);
      } else {
        int& stale = staleness_[job.rank][job.step];
        stale = std::max(stale, job.step - st.version[job.bucket]);
        const double bytes = slice(job.bucket, k);
        transport->account(host, pf_.gpus[job.rank], bytes);
        sg4::Mailbox::by_name(pull_box(k, job.rank))
            ->put_init(&pull_token, static_cast<uint64_t>(std::llround(bytes)))
            ->detach();
        ++pulls;
      }
    }
  }

  RunContext* ctx_;
  const ClusterPlatform& pf_;
  std::vector<PsServerPlace> servers_;
  int p_, g_, buckets_;
  int staleness_bound_;
  std::string prefix_;
  std::vector<std::vector<double>> bytes_;  // [bucket][server]
  std::vector<std::vector<int>> servers_of_;
  double seconds_per_byte_ = 0;  // server update time per gradient byte held
  std::unique_ptr<GroupRings> reduce_rings_, gather_rings_;
  std::vector<sg4::SemaphorePtr> ready_, done_;
  std::vector<ServerState> state_;
  std::vector<std::vector<double>> started_;
  std::vector<std::vector<int>> staleness_;  // [rank][step]
  std::vector<double> busy_, bucket_time_;
  std::vector<int> bucket_calls_;
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
  if (shares.colocated > 0)
    for (int node = 0; node < n; ++node) out.push_back({pf.node_cpus[node], shares.colocated});
  for (int i = 0; i < cpu_servers; ++i) out.push_back({pf.servers[i], shares.cpu});
  return out;
}

std::vector<std::vector<double>> partition_buckets(const std::vector<Bucket>& buckets,
                                                   double chunk_bytes,
                                                   const std::vector<double>& shares) {
  const size_t k = shares.size();
  std::vector<double> load(k, 0.0);
  std::vector<std::vector<double>> out(buckets.size(), std::vector<double>(k, 0.0));
  for (size_t b = 0; b < buckets.size(); ++b) {
    for (const GradientTensor& tensor : buckets[b].tensors) {
      for (double left = tensor.bytes; left > 0; left -= chunk_bytes) {
        const double chunk = std::min(left, chunk_bytes);
        size_t best = k;
        for (size_t s = 0; s < k; ++s) {
          if (shares[s] <= 0) continue;
          if (best == k || (load[s] + chunk) / shares[s] < (load[best] + chunk) / shares[best])
            best = s;
        }
        if (best == k) throw std::invalid_argument("partition_buckets: no server has a share");
        load[best] += chunk;
        out[b][best] += chunk;
      }
    }
  }
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

std::unique_ptr<GradientSync> make_ps_sync(RunContext* ctx, std::vector<PsServerPlace> servers) {
  return std::make_unique<PsSync>(ctx, std::move(servers));
}

}  // namespace ddpsim
