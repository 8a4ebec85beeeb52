#include "sim/engine/sharded_sync.h"

#include <deque>
#include <stdexcept>
#include <vector>

#include "sim/engine/sync_factory.h"

namespace ddpsim {
namespace {

using simgrid::s4u::Semaphore;
using simgrid::s4u::SemaphorePtr;

double now() { return simgrid::s4u::Engine::get_clock(); }

struct Queued {
  ShardedSync::Op op;
  double bytes = 0;
  int step = 0;
  int unit = 0;
  std::string label;
  SemaphorePtr gate;
  ShardedSync::Done done;
};

struct FifoState {
  std::deque<Queued> queue;
  SemaphorePtr pending = Semaphore::create(0);
  uint64_t calls = 0;  // the tag of the next collective: the same sequence on every rank
};

// The rank's FIFO of one communicator: the shard group's, or (fsdp-hybrid) the one across nodes.
enum class Fifo { kShard, kAcross };

class Communicators : public ShardedSync {
 public:
  explicit Communicators(RunContext* ctx) : ctx_(ctx) {
    const Scenario& s = *ctx->scenario;
    Transport* t = ctx->transport.get();
    const bool hybrid = s.sync.sharding.strategy == Sharding::kHybrid;
    const CollectiveGroup shard_group = hybrid ? CollectiveGroup::kNode : CollectiveGroup::kWorld;
    gather_ = make_collective(s, t, CollectiveOp::kAllGather, shard_group);
    reduce_ = make_collective(s, t, CollectiveOp::kReduceScatter, shard_group);
    if (hybrid) across_ = make_collective(s, t, CollectiveOp::kAllReduce, CollectiveGroup::kRail);
    shard_ = hybrid ? s.cluster.gpus_per_node : 1;
    per_unit_ =
        !ctx->plan->units.empty() && (s.sync.sharding.strategy == Sharding::kZero3 || hybrid);
    const int p = s.cluster.total_gpus();
    streams_.resize((hybrid ? 2 : 1) * static_cast<size_t>(p));
    busy_.assign(p, 0.0);
    active_.assign(p, 0);
    active_since_.assign(p, 0.0);
    const size_t reports = std::max(ctx->plan->units.size(), ctx->plan->buckets.size());
    unit_time_.assign(reports, 0.0);
    unit_bytes_.assign(reports, 0.0);
    unit_calls_.assign(reports, 0);
    for (int r = 0; r < p; ++r) {
      simgrid::s4u::Actor::create("shard" + std::to_string(r), ctx->platform->gpus[r],
                                  [this, r] { run(r, Fifo::kShard); });
      if (hybrid)
        simgrid::s4u::Actor::create("across" + std::to_string(r), ctx->platform->gpus[r],
                                    [this, r] { run(r, Fifo::kAcross); });
    }
  }

  Done issue(int rank, Op op, double bytes, int step, int unit, const std::string& label,
             SemaphorePtr gate) override {
    Done done = Semaphore::create(0);
    push(rank, Fifo::kShard, {op, bytes, step, unit, label, std::move(gate), done});
    return done;
  }

  double comm_busy(int rank) const override { return busy_[rank]; }

  std::vector<BucketReport> bucket_reports() const override {
    std::vector<BucketReport> out;
    const IterationPlan& plan = *ctx_->plan;
    const bool units =
        !plan.units.empty() && (ctx_->scenario->sync.sharding.strategy == Sharding::kZero3 ||
                                ctx_->scenario->sync.sharding.strategy == Sharding::kHybrid);
    const size_t n = units ? plan.units.size() : plan.buckets.size();
    for (size_t i = 0; i < n; ++i) {
      const int tensors =
          units ? plan.units[i].tensors : static_cast<int>(plan.buckets[i].tensors.size());
      const double bytes = unit_calls_[i] ? unit_bytes_[i] / unit_calls_[i] : 0.0;
      out.push_back({static_cast<int>(i), tensors, bytes,
                     "reduce-scatter " + reduce_->algorithm_for(bytes),
                     unit_calls_[i] ? unit_time_[i] / unit_calls_[i] : 0.0});
    }
    return out;
  }

  void append_trace(std::vector<TraceEvent>* out) const override {
    out->insert(out->end(), trace_.begin(), trace_.end());
  }

 private:
  FifoState& state(int rank, Fifo fifo) {
    const size_t per_rank = across_ ? 2 : 1;
    return streams_[per_rank * static_cast<size_t>(rank) + (fifo == Fifo::kAcross ? 1 : 0)];
  }

  void push(int rank, Fifo fifo, Queued q) {
    FifoState& st = state(rank, fifo);
    st.queue.push_back(std::move(q));
    st.pending->release();
  }

  // Communication time of a rank counts once however many of its streams are busy.
  void set_active(int rank, bool on, int step) {
    if (on) {
      if (active_[rank]++ == 0) {
        active_since_[rank] = now();
        if (ctx_->interference) ctx_->interference->set_communicating(rank, true);
      }
      return;
    }
    if (--active_[rank] == 0) {
      if (ctx_->measured(step)) busy_[rank] += now() - active_since_[rank];
      if (ctx_->interference) ctx_->interference->set_communicating(rank, false);
    }
  }

  void run(int rank, Fifo fifo) {
    FifoState& st = state(rank, fifo);
    for (;;) {
      st.pending->acquire();
      Queued q = std::move(st.queue.front());
      st.queue.pop_front();
      if (q.op == Op::kStop) {
        if (fifo == Fifo::kShard && across_) push(rank, Fifo::kAcross, std::move(q));
        return;
      }
      if (q.gate) {
        q.gate->acquire();
        q.gate->release();
      }
      const uint64_t tag = st.calls++;
      const double start = now();
      set_active(rank, true, q.step);
      AllReduce& collective = fifo == Fifo::kAcross    ? *across_
                              : q.op == Op::kAllGather ? *gather_
                                                       : *reduce_;
      // fsdp-hybrid: the node's shard of the gradients, summed over the nodes (one ring per
      // local GPU index).
      collective.run(rank, tag, fifo == Fifo::kAcross ? q.bytes / shard_ : q.bytes);
      set_active(rank, false, q.step);
      const double elapsed = now() - start;
      if (q.op == Op::kReduceScatter && rank == 0 && ctx_->measured(q.step) && q.unit >= 0 &&
          q.unit < static_cast<int>(unit_time_.size())) {
        unit_time_[q.unit] += elapsed;
        if (fifo == Fifo::kShard) {
          unit_bytes_[q.unit] += q.bytes;
          ++unit_calls_[q.unit];
        }
      }
      if (ctx_->traced(rank, q.step)) {
        const bool across = fifo == Fifo::kAcross;
        const double bytes = across ? q.bytes / shard_ : q.bytes;
        TraceEvent e(rank, across ? "comm across nodes" : "comm",
                     across ? "all-reduce shard, " + q.label : q.label, start, now());
        // The args a DDP bucket's slice carries (trace_details.h), from the call itself.
        e.numbers["bytes"] = bytes;
        e.texts["collective"] = across                   ? "all-reduce"
                                : q.op == Op::kAllGather ? "all-gather"
                                                         : "reduce-scatter";
        e.texts["algorithm"] = collective.algorithm_for(bytes);
        if (q.unit >= 0) e.numbers[per_unit_ ? "unit" : "bucket"] = q.unit;
        e.numbers["step"] = q.step;
        trace_.push_back(std::move(e));
      }
      if (q.op == Op::kReduceScatter && fifo == Fifo::kShard && across_)
        push(rank, Fifo::kAcross, std::move(q));  // done once summed across nodes
      else
        q.done->release();
    }
  }

  RunContext* ctx_;
  std::unique_ptr<AllReduce> gather_, reduce_, across_;
  int shard_ = 1;
  bool per_unit_ = false;  // zero3 / fsdp-hybrid: calls per wrapped unit, else per DDP bucket
  std::vector<FifoState> streams_;
  std::vector<double> busy_, active_since_;
  std::vector<int> active_;
  std::vector<double> unit_time_, unit_bytes_;
  std::vector<int> unit_calls_;
  std::vector<TraceEvent> trace_;
};

}  // namespace

void ShardedSync::wait(const Done& done) {
  done->acquire();
  done->release();
}

std::unique_ptr<ShardedSync> make_sharded_sync(RunContext* ctx) {
  return std::make_unique<Communicators>(ctx);
}

}  // namespace ddpsim
