// Ring all-reduce over C parallel rings (NCCL channels).
//
// Ring c leaves each node from local GPU x_c = c*g/C (through that GPU's NIC) and enters the next
// node at local GPU (x_c+1) % g, so inside a node it visits x_c+1, x_c+2, ..., x_c (mod g) and
// the C rings use C different NICs. Each ring carries 1/C of the buffer.
//
// Flow mode: each rank moves V = 2(p-1)/p * S in total; one flow per distinct (src, dst) edge per
// call carries V * (rings using the edge) / C, then every rank waits for the slowest edge (the
// data of every edge passes through every rank in a pipelined ring) and adds the analytic
// latency: 2(p-1) * alpha with the alpha cost model, alpha being the largest message latency of
// any ring edge; with the NCCL model, NCCL's ring latency for the protocol it picks, after
// waiting out the protocol's bandwidth ceiling (call_cost.h). The last rank done sleeps the
// latency once for all (LedCall), the others wake with it: the same instants as every rank
// sleeping. The flows stay mailbox puts matched by receives: host-to-host flows
// (Comm::sendto_async) cost less per flow at 64 GPUs but grow with the flows in flight (2.6x
// the CPU time of the mailbox ring at 4,096 GPUs).
// Chunked mode: 2(p-1) steps; in each, every rank sleeps alpha, sends S/(p*C) per ring to its
// successor and receives the same from its predecessor (chunks of rings sharing an edge travel
// as one message). O(p^2) messages: a validation mode.
//
// Reduce-scatter and all-gather are one of the all-reduce's two passes over the same rings:
// V = (p-1)/p * S, latency (p-1) alpha (or NCCL's for that collective), p-1 chunked steps.
#include <algorithm>
#include <map>
#include <simgrid/s4u.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/collectives/allreduce.h"
#include "sim/collectives/call_cost.h"
#include "sim/collectives/collective_sync.h"
#include "sim/collectives/flow_bottleneck.h"

namespace ddpsim {
namespace {

struct Edge {
  int peer = 0;   // successor (out edges) or predecessor (in edges)
  int rings = 0;  // rings using this edge
  std::string mailbox;
  simgrid::s4u::Mailbox* box = nullptr;  // looked up at the edge's first use
};

class RingAllReduce : public AllReduce {
 public:
  RingAllReduce(Transport* transport, CollectiveOp op, CollectiveMode mode, int channels,
                CollectiveCost cost)
      : transport_(transport),
        pf_(transport->platform()),
        mode_(mode),
        passes_(op == CollectiveOp::kAllReduce ? 2 : 1),
        p_(static_cast<int>(pf_.gpus.size())),
        logical_p_(pf_.logical_nodes * pf_.spec.gpus_per_node),
        channels_(ring_channel_count(pf_.spec, channels)),
        start_(p_),
        end_(p_),
        out_(p_),
        in_(p_) {
    static int instances = 0;
    const std::string prefix = "ring" + std::to_string(instances++) + ":";
    for (int r = 0; r < p_; ++r) {
      std::map<int, int> rings_to;  // successor -> rings
      for (int c = 0; c < channels_; ++c) ++rings_to[successor(c, r)];
      for (const auto& [next, rings] : rings_to) {
        const std::string box = prefix + std::to_string(r) + ">" + std::to_string(next);
        out_[r].push_back(Edge{next, rings, box});
        in_[next].push_back(Edge{r, rings, box});
        alpha_ = std::max(alpha_, message_latency(pf_, pf_.gpus[r], pf_.gpus[next]));
      }
    }
    std::vector<FlowShare> flows;
    // Volumes and the latency term are the whole cluster's (logical_p_): under the symmetric
    // scope the ranks simulated are a slice whose edges carry what the full ring's carry.
    const double volume = p_ > 1 ? passes_ * (logical_p_ - 1.0) / logical_p_ : 0;
    for (int r = 0; r < p_; ++r)
      for (const Edge& e : out_[r])
        flows.push_back({pf_.gpus[r], pf_.gpus[e.peer], volume * e.rings / channels_});
    cost_ = std::make_unique<CallCost>(pf_.logical_spec(), NcclAlgorithm::kRing, channels_, cost,
                                       seconds_per_byte(pf_, flows),
                                       passes_ * (logical_p_ - 1.0) * alpha_, op);
  }

  void run(int rank, uint64_t tag, double bytes) override {
    if (p_ == 1 || bytes <= 0) return;
    start_.arrive_and_wait(tag);
    if (mode_ == CollectiveMode::kFlow) {
      const double start = simgrid::s4u::Engine::get_clock();
      const double volume = passes_ * (logical_p_ - 1.0) / logical_p_ * bytes;
      exchange(rank, volume / channels_);
      // Once the last flow ended, the call's latency, slept once for all ranks.
      end_.join(tag, [this, start, bytes] {
        const double elapsed = simgrid::s4u::Engine::get_clock() - start;
        simgrid::s4u::this_actor::sleep_for(cost_->after_flows(bytes, elapsed));
      });
    } else {
      const double chunk = bytes / (static_cast<double>(p_) * channels_);
      for (int step = 0; step < passes_ * (p_ - 1); ++step) exchange(rank, chunk, alpha_);
    }
  }

  std::string name() const override { return "ring"; }
  std::string algorithm_for(double bytes) const override {
    return mode_ == CollectiveMode::kFlow ? cost_->label("ring", bytes) : "ring";
  }
  double predicted_time(double bytes) const override {
    return p_ > 1 && bytes > 0 ? cost_->predicted(bytes) : 0;
  }
  double links_algbw() const override { return p_ > 1 ? cost_->links_algbw() : 0; }

 private:
  // Ring c's successor of rank r.
  int successor(int c, int r) const {
    const int g = pf_.spec.gpus_per_node;
    const int node = pf_.node_of_rank(r);
    const int local = pf_.local_of_rank(r);
    const int exit = c * g / channels_;
    const int next_node = local == exit ? (node + 1) % pf_.spec.nodes : node;
    return next_node * g + (local + 1) % g;
  }

  static simgrid::s4u::Mailbox* box(Edge* e) {
    if (e->box == nullptr) e->box = simgrid::s4u::Mailbox::by_name(e->mailbox);
    return e->box;
  }

  // Receives from every predecessor and sends `per_ring` bytes per ring to every successor,
  // after sleeping `latency` (receives are posted first: a put moves data only once matched).
  void exchange(int rank, double per_ring, double latency = 0) {
    std::vector<simgrid::s4u::CommPtr> comms;
    comms.reserve(in_[rank].size() + out_[rank].size());
    for (Edge& e : in_[rank]) comms.push_back(transport_->irecv(box(&e)));
    if (latency > 0) simgrid::s4u::this_actor::sleep_for(latency);
    const simgrid::s4u::Host* self = pf_.gpus[rank];
    for (Edge& e : out_[rank])
      comms.push_back(transport_->isend(self, pf_.gpus[e.peer], box(&e), per_ring * e.rings,
                                        /*add_latency=*/false));
    simgrid::s4u::Comm::wait_all(comms);
  }

  Transport* transport_;
  const ClusterPlatform& pf_;
  CollectiveMode mode_;
  int passes_;  // ring passes: 2 for all-reduce (reduce-scatter + all-gather), else 1
  int p_;
  int logical_p_;  // GPUs of the cluster the ring stands for (p_ but under the symmetric scope)
  int channels_;
  double alpha_ = 0;
  std::unique_ptr<CallCost> cost_;
  CallBarrier start_;
  LedCall end_;  // flow mode
  std::vector<std::vector<Edge>> out_;
  std::vector<std::vector<Edge>> in_;
};

}  // namespace

std::unique_ptr<AllReduce> make_ring_allreduce(Transport* transport, CollectiveMode mode,
                                               int channels, CollectiveCost cost) {
  return make_ring_collective(transport, CollectiveOp::kAllReduce, mode, channels, cost);
}

std::unique_ptr<AllReduce> make_ring_collective(Transport* transport, CollectiveOp op,
                                                CollectiveMode mode, int channels,
                                                CollectiveCost cost) {
  if (op == CollectiveOp::kBroadcast)
    throw std::invalid_argument("make_ring_collective: broadcast is not modelled");
  // The chunked ring is the alpha model's validation mode.
  if (mode == CollectiveMode::kChunked) cost.model = LatencyModel::kAlpha;
  return std::make_unique<RingAllReduce>(transport, op, mode, channels, cost);
}

}  // namespace ddpsim
