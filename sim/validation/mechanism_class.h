// Which mechanism a prediction rests on: the class whose measured model error (discrepancy.h)
// bands it, and the features that say whether any validated case was like it. The classes were
// fixed before any residual was looked at (docs/model-error.md):
//   binds: what the nominal run's step waits on
//     data-loading  data wait >= 10 % of the step and at least the exposed communication
//     intra-node    communication matters (exposed >= 10 % of the step, busy >= 30 %, or the case
//                   times a collective) on one node
//     network-rdma  the same across nodes over RDMA; network-tcp: over TCP
//     compute       otherwise
//   sync: allreduce (and local SGD), ps (parameter servers), sharded (ZeRO 1-3, FSDP)
// Pure: reads a typed scenario and a finished result.
#pragma once

#include <string>

#include "sim/results/result.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

struct MechanismClass {
  std::string binds;  // compute | intra-node | network-rdma | network-tcp | data-loading
  std::string sync;   // allreduce | ps | sharded
  std::string name() const { return binds + "/" + sync; }
  bool operator==(const MechanismClass& o) const { return binds == o.binds && sync == o.sync; }
};

// What a validated case must share with a scenario for its error to speak for it.
struct SupportFeatures {
  std::string transport;   // rdma | tcp | none (one node)
  std::string intra_node;  // nvswitch | nvlink | pcie | none (one GPU per node)
  int generation = 0;      // compute capability / 10: 3 Kepler ... 9 Hopper, 10 Blackwell; 0 other
  int gpus = 1;
};

// `collective_case`: the measurement times a collective (busbw, allreduce_time), so
// communication binds whatever the step's shares say.
MechanismClass classify_mechanism(const Scenario& scenario, const SimulationResult& nominal,
                                  bool collective_case = false);
MechanismClass classify_mechanism(const Scenario& scenario, int nodes, double exposed_comm_share,
                                  double comm_share, double data_wait_share,
                                  bool collective_case = false);

SupportFeatures support_features(const Scenario& scenario);

}  // namespace ddpsim
