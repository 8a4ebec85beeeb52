#include "sim/cost/collective_formulas.h"

#include <algorithm>
#include <cmath>

namespace ddpsim {

double ring_allreduce_time(int p, double bytes, double bandwidth, double alpha) {
  if (p <= 1) return 0;
  return 2.0 * (p - 1) / p * bytes / bandwidth + 2.0 * (p - 1) * alpha;
}

std::vector<TreeLinks> nccl_binary_tree(int n) {
  std::vector<TreeLinks> tree(std::max(n, 0));
  for (int rank = 1; rank < n; ++rank) {
    int bit = 1;
    while (bit < n && !(bit & rank)) bit <<= 1;
    int up = (rank ^ bit) | (bit << 1);
    if (up >= n) up = rank ^ bit;
    tree[rank].parent = up;
  }
  // Children in the order NCCL lists them (down0 = rank - lowbit before down1 = rank + lowbit).
  for (int rank = 0; rank < n; ++rank)
    for (int child = 0; child < n; ++child)
      if (tree[child].parent == rank && child < rank) tree[rank].children.push_back(child);
  for (int rank = 0; rank < n; ++rank)
    for (int child = 0; child < n; ++child)
      if (tree[child].parent == rank && child > rank) tree[rank].children.push_back(child);
  return tree;
}

std::vector<std::vector<TreeLinks>> nccl_double_binary_tree(int n) {
  std::vector<TreeLinks> first = nccl_binary_tree(n);
  std::vector<TreeLinks> second(first.size());
  // Rank r of the second tree plays rank map(r) of the first.
  auto to_first = [n](int r) { return n % 2 == 1 ? (r - 1 + n) % n : n - 1 - r; };
  auto to_second = [n](int r) { return n % 2 == 1 ? (r + 1) % n : n - 1 - r; };
  for (int r = 0; r < n; ++r) {
    const TreeLinks& model = first[to_first(r)];
    second[r].parent = model.parent < 0 ? -1 : to_second(model.parent);
    for (int c : model.children) second[r].children.push_back(to_second(c));
  }
  return {first, second};
}

int tree_depth(const std::vector<TreeLinks>& tree) {
  int deepest = 0;
  for (size_t r = 0; r < tree.size(); ++r) {
    int depth = 0;
    for (int at = static_cast<int>(r); tree[at].parent >= 0; at = tree[at].parent) ++depth;
    deepest = std::max(deepest, depth);
  }
  return deepest;
}

double double_binary_tree_time(int n, double bytes, double bandwidth, double alpha) {
  if (n <= 1) return 0;
  const auto trees = nccl_double_binary_tree(n);
  int busiest = 0;  // tree neighbours of one rank over both trees: flows of S/2 per direction
  for (int r = 0; r < n; ++r) {
    int flows = 0;
    for (const auto& tree : trees)
      flows += (tree[r].parent >= 0 ? 1 : 0) + static_cast<int>(tree[r].children.size());
    busiest = std::max(busiest, flows);
  }
  const int depth = std::max(tree_depth(trees[0]), tree_depth(trees[1]));
  return busiest * (bytes / 2) / bandwidth + 2.0 * depth * alpha;
}

double chain_allreduce_time(int g, double bytes, double bandwidth, double alpha) {
  if (g <= 1) return 0;
  const int flows = g == 2 ? 1 : 2;
  return flows * bytes / bandwidth + 2.0 * (g - 1) * alpha;
}

namespace {

int largest_power_of_two_at_most(int p) {
  int q = 1;
  while (q * 2 <= p) q *= 2;
  return q;
}

}  // namespace

double nvls_allreduce_time(int g, double bytes, double bandwidth, double alpha) {
  if (g <= 1) return 0;
  return bytes * (1 + 1.0 / g) / bandwidth + 2 * alpha;
}

double halving_doubling_time(int p, double bytes, double bandwidth, double alpha) {
  if (p <= 1) return 0;
  const int q = largest_power_of_two_at_most(p);
  const double steps = std::log2(static_cast<double>(q));
  double t = 2.0 * (q - 1) / q * bytes / bandwidth + 2.0 * steps * alpha;
  if (q < p) t += 2.0 * (bytes / bandwidth + alpha);
  return t;
}

double halving_doubling_volume(int p, double bytes) {
  if (p <= 1) return 0;
  const int q = largest_power_of_two_at_most(p);
  return 2.0 * (q - 1) * bytes + 2.0 * (p - q) * bytes;
}

double hierarchical_allreduce_time(const HierarchicalLinks& l, double bytes) {
  const int g = l.gpus_per_node, n = l.nodes;
  double t = 0;
  if (g > 1) t += 2.0 * (g - 1) / g * bytes / l.intra_bandwidth + 2.0 * (g - 1) * l.intra_alpha;
  if (n > 1) {
    const double shard = bytes / g;
    const double gpus_per_nic = static_cast<double>(g) / std::min(l.nics, g);
    const double per_byte = std::max(1.0 / l.pcie_bandwidth, gpus_per_nic / l.nic_bandwidth);
    t += 2.0 * (n - 1) / n * shard * per_byte + 2.0 * (n - 1) * l.nic_alpha;
  }
  return t;
}

double hierarchical_volume_per_rank(int nodes, int g, double bytes) {
  return 2.0 * (g - 1) / g * bytes + 2.0 * (nodes - 1) / nodes * bytes / g;
}

double ring_reduce_scatter_time(int p, double bytes, double bandwidth, double alpha) {
  if (p <= 1) return 0;
  return (p - 1.0) / p * bytes / bandwidth + (p - 1.0) * alpha;
}

double ring_all_gather_time(int p, double bytes, double bandwidth, double alpha) {
  return ring_reduce_scatter_time(p, bytes, bandwidth, alpha);
}

double halving_doubling_reduce_scatter_time(int p, double bytes, double bandwidth, double alpha) {
  if (p <= 1) return 0;
  const int q = largest_power_of_two_at_most(p);
  double t = (q - 1.0) / q * bytes / bandwidth + std::log2(static_cast<double>(q)) * alpha;
  if (q < p) t += (bytes + bytes / p) / bandwidth + 2 * alpha;
  return t;
}

double halving_doubling_reduce_scatter_volume(int p, double bytes) {
  if (p <= 1) return 0;
  const int q = largest_power_of_two_at_most(p);
  return (q - 1.0) * bytes + (p - q) * (bytes + bytes / p);
}

double rail_bandwidth(const HierarchicalLinks& l) {
  const double gpus_per_nic =
      static_cast<double>(l.gpus_per_node) / std::min(l.nics, l.gpus_per_node);
  return std::min(l.pcie_bandwidth, l.nic_bandwidth / gpus_per_nic);
}

double hierarchical_reduce_scatter_time(const HierarchicalLinks& l, double bytes) {
  return ring_reduce_scatter_time(l.gpus_per_node, bytes, l.intra_bandwidth, l.intra_alpha) +
         ring_reduce_scatter_time(l.nodes, bytes / l.gpus_per_node, rail_bandwidth(l), l.nic_alpha);
}

double hierarchical_reduce_scatter_volume_per_rank(int nodes, int g, double bytes) {
  return (g - 1.0) / g * bytes + (nodes - 1.0) / nodes * bytes / g;
}

double pcie_ring_allreduce_time(const PcieNodeLinks& l, double bytes) {
  const int g = l.gpus;
  if (g <= 1) return 0;
  const double volume = 2.0 * (g - 1) / g * bytes;
  const int staged_per_socket = !l.p2p ? g / l.sockets : (l.sockets == 2 ? 1 : 0);
  double per_byte = 1.0 / l.pcie_bandwidth;
  per_byte = std::max(per_byte, 2.0 * staged_per_socket / l.host_bandwidth);
  if (l.sockets == 2) per_byte = std::max(per_byte, 1.0 / l.socket_bandwidth);
  return volume * per_byte + 2.0 * (g - 1) * l.alpha;
}

double staged_nic_ring_allreduce_time(int n, double bytes, double pcie_bandwidth,
                                      double host_bandwidth, double nic_bandwidth, double alpha) {
  if (n <= 1) return 0;
  const double volume = 2.0 * (n - 1) / n * bytes;
  const double per_byte =
      std::max({1.0 / pcie_bandwidth, 4.0 / host_bandwidth, 1.0 / nic_bandwidth});
  return volume * per_byte + 2.0 * (n - 1) * alpha;
}

double ps_push_time(int n, int k, double bytes, double worker_bandwidth, double server_bandwidth) {
  return std::max(bytes / worker_bandwidth, n * bytes / (k * server_bandwidth));
}

double colocated_ps_push_time(int n, int k, double bytes, double bandwidth) {
  return (n - 1) * bytes / (k * bandwidth);
}

BytepsShares byteps_shares(int n, int k) {
  BytepsShares s;
  if (k >= n) {
    s.cpu = 1.0 / k;
    return s;
  }
  const double d = static_cast<double>(n) * n + static_cast<double>(k) * n - 2.0 * k;
  s.colocated = (n - k) / d;
  s.cpu = k > 0 ? 2.0 * (n - 1) / d : 0;
  return s;
}

double byteps_optimum_time(int n, int k, double bytes, double bandwidth) {
  const double d = static_cast<double>(n) * n + static_cast<double>(k) * n - 2.0 * k;
  return 2.0 * n * (n - 1) * bytes / (d * bandwidth);
}

}  // namespace ddpsim
