#include "sim/validation/mechanism_class.h"

namespace ddpsim {
namespace {

// Thresholds fixed with the classes (docs/model-error.md): the step's share of a wait that makes
// its mechanism the one the prediction rests on. 10 % is where the summary's bottleneck label
// stops saying compute-bound (simulation.cpp); a sync stream busy for 30 % of the step carries
// enough that its overlap, not only its exposed part, shapes the step.
constexpr double kExposedShare = 0.10;
constexpr double kBusyShare = 0.30;
constexpr double kDataShare = 0.10;

}  // namespace

MechanismClass classify_mechanism(const Scenario& s, int nodes, double exposed_comm_share,
                                  double comm_share, double data_wait_share,
                                  bool collective_case) {
  MechanismClass c;
  if (s.sync.sharding.strategy != Sharding::kNone)
    c.sync = "sharded";
  else if (s.sync.strategy == SyncStrategy::kParameterServer)
    c.sync = "ps";
  else
    c.sync = "allreduce";
  const bool comm = collective_case || exposed_comm_share >= kExposedShare ||
                    comm_share >= kBusyShare;
  if (!collective_case && data_wait_share >= kDataShare && data_wait_share >= exposed_comm_share)
    c.binds = "data-loading";
  else if (comm && nodes > 1)
    c.binds = s.cluster.nic.transport == NicTransport::kTcp ? "network-tcp" : "network-rdma";
  else if (comm)
    c.binds = "intra-node";
  else
    c.binds = "compute";
  return c;
}

MechanismClass classify_mechanism(const Scenario& s, const SimulationResult& r,
                                  bool collective_case) {
  const double step = r.iteration_time > 0 ? r.iteration_time : 1;
  return classify_mechanism(s, r.nodes > 0 ? r.nodes : s.cluster.nodes, r.exposed_comm_share,
                            r.comm_share, r.breakdown.data_wait / step, collective_case);
}

SupportFeatures support_features(const Scenario& s) {
  SupportFeatures f;
  const ClusterSpec& c = s.cluster;
  f.transport = c.nodes < 2 ? "none" : c.nic.transport == NicTransport::kTcp ? "tcp" : "rdma";
  if (c.gpus_per_node < 2)
    f.intra_node = "none";
  else
    f.intra_node = c.intra_node.kind == IntraNodeKind::kNvSwitch     ? "nvswitch"
                   : c.intra_node.kind == IntraNodeKind::kNvLinkMesh ? "nvlink"
                                                                     : "pcie";
  f.generation = c.gpu.compute_capability / 10;
  f.gpus = c.total_gpus();
  return f;
}

}  // namespace ddpsim
