#include "sim/cost/ps_partition.h"

#include <cmath>
#include <stdexcept>
#include <string>

namespace ddpsim {

std::vector<double> partition_sizes(double bytes, double partition) {
  if (!(partition > 0)) throw std::invalid_argument("partition_sizes: partition must be > 0");
  std::vector<double> out;
  for (double left = bytes; left > 0; left -= partition) out.push_back(std::min(left, partition));
  return out;
}

double byteps_partition_bytes(double requested, int gpus_per_node) {
  const double align = 4096.0 * std::max(gpus_per_node, 1);  // RoundUp(bytes, local_size * page)
  return std::ceil(requested / align) * align;
}

uint64_t byteps_key(int declared, int index) {
  return (static_cast<uint64_t>(declared) << 16) + static_cast<uint64_t>(index);
}

uint64_t djb2(uint64_t key) {
  uint64_t hash = 5381;
  for (char c : std::to_string(key)) hash = ((hash << 5) + hash) + static_cast<uint64_t>(c);
  return hash;
}

int byteps_mixed_server(uint64_t key, int colocated, int cpu) {
  if (colocated < 1) throw std::invalid_argument("byteps_mixed_server: no colocated server");
  constexpr uint64_t kBound = 101;  // BYTEPS_MIXED_MODE_BOUND default
  const double n = colocated, k = cpu;
  const double ratio = 2.0 * k * (n - 1) / (n * (n + k) - 2 * k);
  const uint64_t residue = djb2(key) % kBound;
  if (cpu > 0 && static_cast<double>(residue) < ratio * kBound)
    return colocated + static_cast<int>(djb2(residue) % static_cast<uint64_t>(cpu));
  return static_cast<int>(djb2(residue) % static_cast<uint64_t>(colocated));
}

std::vector<int> place_keys(const std::vector<uint64_t>& keys, const std::vector<double>& bytes,
                            KeyPlacement placement, const std::vector<double>& shares,
                            int mixed_colocated) {
  const size_t k = shares.size();
  if (k == 0) throw std::invalid_argument("place_keys: no server");
  std::vector<int> out(keys.size(), 0);
  std::vector<double> load(k, 0.0), count(k, 0.0);
  for (size_t i = 0; i < keys.size(); ++i) {
    if (placement == KeyPlacement::kHash) {
      out[i] = mixed_colocated >= 0 ? byteps_mixed_server(keys[i], mixed_colocated,
                                                          static_cast<int>(k) - mixed_colocated)
                                    : static_cast<int>(djb2(keys[i]) % k);
      continue;
    }
    const bool by_bytes = placement == KeyPlacement::kLeastLoaded;
    const std::vector<double>& used = by_bytes ? load : count;
    const double add = by_bytes ? bytes[i] : 1.0;
    size_t best = k;
    for (size_t s = 0; s < k; ++s) {
      if (shares[s] <= 0) continue;
      if (best == k || (used[s] + add) / shares[s] < (used[best] + add) / shares[best]) best = s;
    }
    if (best == k) throw std::invalid_argument("place_keys: no server has a share");
    load[best] += bytes[i];
    count[best] += 1;
    out[i] = static_cast<int>(best);
  }
  return out;
}

std::vector<double> server_loads(const std::vector<double>& bytes, const std::vector<int>& server,
                                 int servers) {
  std::vector<double> out(servers, 0.0);
  for (size_t i = 0; i < bytes.size(); ++i) out[server[i]] += bytes[i];
  return out;
}

}  // namespace ddpsim
