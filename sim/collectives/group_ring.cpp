#include "sim/collectives/group_ring.h"

#include <algorithm>
#include <simgrid/s4u.hpp>

namespace ddpsim {

GroupRings::GroupRings(Transport* transport, std::vector<std::vector<int>> groups)
    : transport_(transport), groups_(std::move(groups)) {
  static int instances = 0;
  const std::string prefix = "grp" + std::to_string(instances++) + ":";
  const ClusterPlatform& pf = transport_->platform();
  const size_t p = pf.gpus.size();
  group_of_.assign(p, -1);
  successor_.assign(p, -1);
  out_box_.resize(p);
  in_box_.resize(p);
  for (size_t g = 0; g < groups_.size(); ++g) {
    const std::vector<int>& members = groups_[g];
    const int m = static_cast<int>(members.size());
    double alpha = 0;
    for (int i = 0; i < m; ++i) {
      const int from = members[i], to = members[(i + 1) % m];
      group_of_[from] = static_cast<int>(g);
      successor_[from] = to;
      const std::string box = prefix + std::to_string(from) + ">" + std::to_string(to);
      out_box_[from] = box;
      in_box_[to] = box;
      if (m > 1) alpha = std::max(alpha, message_latency(pf, pf.gpus[from], pf.gpus[to]));
    }
    alpha_.push_back(alpha);
    start_.push_back(std::make_unique<CallBarrier>(m));
    end_.push_back(std::make_unique<CallBarrier>(m));
  }
}

int GroupRings::group_size(int rank) const {
  const int g = group_of_.at(rank);
  return g < 0 ? 1 : static_cast<int>(groups_[g].size());
}

double GroupRings::alpha(int rank) const {
  const int g = group_of_.at(rank);
  return g < 0 ? 0 : alpha_[g];
}

double GroupRings::phase(int rank, uint64_t tag, double bytes, int latency_steps) {
  const int g = group_of_.at(rank);
  if (g < 0 || groups_[g].size() <= 1 || bytes <= 0) return 0;
  start_[g]->arrive_and_wait(tag);
  const double start = simgrid::s4u::Engine::get_clock();
  const ClusterPlatform& pf = transport_->platform();
  std::vector<simgrid::s4u::CommPtr> comms;
  comms.push_back(transport_->irecv(mailbox(&in_mb_, in_box_, rank)));
  comms.push_back(transport_->isend(pf.gpus[rank], pf.gpus[successor_[rank]],
                                    mailbox(&out_mb_, out_box_, rank), bytes,
                                    /*add_latency=*/false));
  simgrid::s4u::Comm::wait_all(comms);
  end_[g]->arrive_and_wait(tag);
  const double elapsed = simgrid::s4u::Engine::get_clock() - start;
  if (latency_steps > 0 && alpha_[g] > 0)
    simgrid::s4u::this_actor::sleep_for(latency_steps * alpha_[g]);
  return elapsed;
}

simgrid::s4u::Mailbox* GroupRings::mailbox(std::vector<simgrid::s4u::Mailbox*>* cache,
                                           const std::vector<std::string>& names, int rank) {
  if (cache->empty()) cache->assign(names.size(), nullptr);
  simgrid::s4u::Mailbox*& box = (*cache)[rank];
  if (box == nullptr) box = simgrid::s4u::Mailbox::by_name(names[rank]);
  return box;
}

std::vector<std::vector<int>> GroupRings::nodes(const ClusterPlatform& pf) {
  const int g = pf.spec.gpus_per_node;
  std::vector<std::vector<int>> out(pf.spec.nodes);
  for (int n = 0; n < pf.spec.nodes; ++n)
    for (int l = 0; l < g; ++l) out[n].push_back(n * g + l);
  return out;
}

std::vector<std::vector<int>> GroupRings::rails(const ClusterPlatform& pf) {
  const int g = pf.spec.gpus_per_node;
  std::vector<std::vector<int>> out(g);
  for (int l = 0; l < g; ++l)
    for (int n = 0; n < pf.spec.nodes; ++n) out[l].push_back(n * g + l);
  return out;
}

}  // namespace ddpsim
