// Rings over disjoint groups of ranks (the GPUs of one node, one rail across nodes), in flow mode:
// the reduce-scatter or all-gather phase of a ring all-reduce inside every group at once. Used by
// hierarchical collectives, node and rail group collectives (group_collective.cpp) and by
// parameter servers (intra-node reduce before push, all-gather after pull).
//
// One phase: every member waits for its whole group to join, sends `bytes` to its successor as
// one flow (receiving the same from its predecessor), waits for the group's last flow (in a
// pipelined ring every member's result depends on every edge), then sleeps steps * alpha, alpha
// being the largest message latency of the group's edges. Ring phase volumes: reduce-scatter and
// all-gather each move (m-1)/m * S per member of an m-member group, latency m-1 steps.
#pragma once

#include <cstdint>
#include <memory>
#include <simgrid/s4u.hpp>
#include <string>
#include <vector>

#include "sim/collectives/collective_sync.h"
#include "sim/collectives/traffic.h"

namespace ddpsim {

class GroupRings {
 public:
  // groups: ranks in ring order; a rank belongs to at most one group. Ranks index
  // platform.gpus; each member's actor must run on its GPU.
  GroupRings(Transport* transport, std::vector<std::vector<int>> groups);

  // Called by every member of rank's group with the same tag; returns at once for a group of
  // one member or bytes <= 0. Returns the seconds from the group's last join to its last flow's
  // end (the latency sleep excluded), 0 when it returned at once.
  double phase(int rank, uint64_t tag, double bytes, int latency_steps);

  int group_size(int rank) const;
  // The largest message latency of the edges of rank's group's ring (0 for one member).
  double alpha(int rank) const;

  // The usual groupings of a cluster: one group per node (local order), one group per local GPU
  // index across nodes (a rail: node order).
  static std::vector<std::vector<int>> nodes(const ClusterPlatform& platform);
  static std::vector<std::vector<int>> rails(const ClusterPlatform& platform);

 private:
  Transport* transport_;
  std::vector<std::vector<int>> groups_;
  std::vector<int> group_of_, successor_;
  // A rank's mailbox, looked up by name at its first use (names: out_box_ or in_box_).
  static simgrid::s4u::Mailbox* mailbox(std::vector<simgrid::s4u::Mailbox*>* cache,
                                        const std::vector<std::string>& names, int rank);

  std::vector<std::string> out_box_, in_box_;  // per rank
  std::vector<simgrid::s4u::Mailbox*> out_mb_, in_mb_;
  std::vector<double> alpha_;  // per group
  std::vector<std::unique_ptr<CallBarrier>> start_, end_;
};

}  // namespace ddpsim
