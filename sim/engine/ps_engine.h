// The engine of the pipelined parameter servers of ps_sync.h, shared by the files that implement
// it by role (private to sim/engine/; everything else uses make_ps_sync):
//   ps_sync.cpp          construction, the GradientSync interface, reports, layouts
//   ps_partitioning.cpp  units cut into partitions, keys placed on servers and engine threads
//   ps_connections.cpp   per-connection message queues (pushes and pulls) and their senders
//   ps_worker.cpp        the GPU side: intra-node rings, pushes under credit, pulls landing
//   ps_server.cpp        the server side: engine threads summing pushes, pulls falling due
//
// Actors of the pipelined parameter servers of ps_sync.h. Per GPU, with g > 1 GPUs per node, a
// reduce and a gather actor that run the node's intra-node rings in the node's order. Per
// server: its engine threads, each working through a FIFO of sums and merges. A connection (GPU
// to server for pushes, server to GPU for pulls) sends its queue through a sender actor while the
// queue is not empty; an idle sender waits in a pool for the next connection to fall busy, so
// actors grow with the connections busy at once, not with their number, and are not created and
// destroyed per burst (each creation maps and unmaps a stack: 10-30 % of a run's CPU). Landed
// messages are handled by the sending actor (it knows when its put completed), which keeps every
// event O(1) in the number of GPUs.
//
// Node lanes (a run that reports headline figures only, RunContext::node_lanes): a node's GPUs
// push and pull their slices of a partition together (the intra-node reduce-scatter and
// all-gather make them start together), so where every flow on the network comes in such groups
// one flow of g slices between the node's CPU and a remote server gets from max-min sharing what
// the g flows got, with g times fewer flows and landings. The node's first GPU queues, credits
// and sends for the node; pushes to the node's own server stay one flow per GPU. What it leaves
// out, the slices' share of each GPU's PCIe and host-memory links (which only the intra-node
// rings and loader copies also cross), is checked against full runs (docs/scale.md, "Node lanes").
#pragma once

#include <algorithm>
#include <cmath>
#include <deque>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/collectives/group_ring.h"
#include "sim/cost/collective_formulas.h"
#include "sim/cost/comm_schedule.h"
#include "sim/cost/ps_partition.h"
#include "sim/engine/ps_sync.h"

namespace ddpsim {
namespace ps_detail {

namespace sg4 = simgrid::s4u;

inline double now() { return sg4::Engine::get_clock(); }

class PsSync : public GradientSync {
 public:
  PsSync(RunContext* ctx, std::vector<PsServerPlace> servers, int mixed_colocated);

  void bucket_ready(int rank, int step, int unit) override;

  void wait_synchronised(int rank, int step) override;

  bool gates_forward() const override { return priority_ || forward_pulls_; }

  void wait_layer(int rank, int step, int layer) override;

  bool worker_runs_optimizer() const override { return s_.sync.ps.update == PsUpdate::kWorker; }
  int peer_step(int step) const override { return step - staleness_bound_; }
  double comm_busy(int rank) const override { return busy_[rank]; }

  std::vector<BucketReport> bucket_reports() const override;

  void append_trace(std::vector<TraceEvent>* out) const override;

  void report(SimulationResult* result) const override;

  void steps_over() override;

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
  // A sender actor and the connection it serves; connection nullptr: the run is over, it ends.
  struct Sender {
    sg4::SemaphorePtr go = sg4::Semaphore::create(0);
    Connection* connection = nullptr;
    bool push = false;
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
    std::vector<int> requests;                   // [step]: GPUs that asked for forward pulls
    std::vector<std::pair<int, int>> reducible;  // (step, unit) ready everywhere, not yet ordered
    std::vector<std::pair<int, int>> reduce_order, gather_order;
  };

  // ---------------------------------------------------------------- partitions

  void cut_partitions(int mixed_colocated);

  double slice(int part) const { return parts_[part].bytes / g_; }
  bool goes_before(const Message& a, const Message& b) const;

  // ---------------------------------------------------------------- connections

  // Appends to a connection (in order, or by priority) and starts its sender when idle.
  void send(Connection* c, const Message& m, bool ordered, bool push);

  // Sends the queue back to back (a message's bytes start as soon as the previous one's have
  // left, as TCP and RDMA pipeline them) and delivers each message the connection's latency after
  // its last byte: the actor waits for the transfer in flight or for the next delivery, whichever
  // comes first.
  void run_connection(Connection* c, bool push);

  // A sender's life: the connections it is handed, one after the other, until steps_over().
  void run_sender(Sender* sender);

  // Starts the flows of one message: one; or, for a node lane, one from the node's CPU to a
  // remote server (counted as its GPUs' slices) or one per GPU to the node's own server.
  void start_message(const Message& m, bool push, std::vector<sg4::CommPtr>* comms);

  // The GPUs a message stands for: its own, or its node's under node lanes.
  int lane_gpus() const { return lanes_ ? g_ : 1; }

  // ---------------------------------------------------------------- worker side

  // A unit is reduced inside the node (or ready on a single-GPU node): its partitions queue.
  void enqueue_unit(int rank, int step, int unit);

  // Simcalls (an actor created, a semaphore released) let other actors run before they return:
  // every container change happens before the first of them, and no index or iterator lives
  // across one.
  void release_pushes(int rank);

  void wake_node(int rank, sg4::SemaphorePtr RankState::*wake);

  // The node's intra-node reduce-scatters, one unit at a time in the node's order: the first of
  // its GPUs to be free picks the next among the units ready on every GPU of the node.
  void reduce(int rank);

  // The node's all-gathers, in the order units came back on every GPU of the node.
  void gather(int rank);

  bool unit_before(std::pair<int, int> a, std::pair<int, int> b) const;
  uint64_t tag(int step, int unit) const;
  void pull_landed(const Message& m);

  void unit_back(int rank, int step, int unit);

  // Compute slows while its GPU moves gradients (compute.overlap_slowdown).
  void transferring(int rank, int delta);

  static double union_length(std::vector<std::pair<double, double>> spans);

  // pull: forward. The worker starts its next step: its summed partitions go out by layer.
  void request_pulls(int rank, int step);

  // ---------------------------------------------------------------- server side

  void push_landed(const Message& m);

  // One engine thread: sums and merges of its keys, in arrival order.
  void serve(int k, int th, long expected);

  static void busy_for(double seconds);

  // Async: pulls whose own push has landed and whose version the server now holds.
  void release_waiting(int part);

  void pull_due(int part, int step, int rank);

  void send_pull(int part, int step, int rank);

  RunContext* ctx_;
  const Scenario& s_;
  const ClusterPlatform& pf_;
  std::vector<PsServerPlace> servers_;
  int p_, g_, k_, units_, steps_;
  int staleness_bound_;
  bool priority_, forward_pulls_;
  bool lanes_ = false;  // node lanes (above)
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
  std::deque<Sender> senders_;  // every sender actor's state (stable addresses)
  std::vector<Sender*> idle_;   // senders waiting for a connection, most recent last
  bool steps_over_ = false;     // no sender waits any more: each ends with its queue
};

}  // namespace ps_detail
}  // namespace ddpsim
