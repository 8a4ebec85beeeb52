// Partitioning for the parameter servers (ps_engine.h): every unit cut into sync.partition-sized
// partitions, each partition's key placed on a server (sim/cost/ps_partition.h) and on one of its
// engine threads, the order partitions go out in (fifo, or by layer under priority), and which
// hosts the servers are (ps_layout, byteps_layout). Pure bookkeeping: no actor runs here.
#include <stdexcept>

#include "sim/engine/ps_engine.h"

namespace ddpsim {
namespace ps_detail {

void PsSync::cut_partitions(int mixed_colocated) {
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
  std::vector<std::vector<double>> thread_load(k_, std::vector<double>(s_.sync.ps.server_threads));
  for (size_t x = 0; x < parts_.size(); ++x) {
    parts_[x].server = server[x];
    std::vector<double>& load = thread_load[server[x]];
    const auto least = std::min_element(load.begin(), load.end());
    parts_[x].thread = static_cast<int>(least - load.begin());
    *least += bytes[x];
  }
}

bool PsSync::goes_before(const Message& a, const Message& b) const {
  if (a.step != b.step) return a.step < b.step;
  return before_in_priority(parts_[a.part].layer, a.part, parts_[b.part].layer, b.part);
}

}  // namespace ps_detail
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

}  // namespace ddpsim
