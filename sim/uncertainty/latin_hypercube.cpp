#include "sim/uncertainty/latin_hypercube.h"

#include <numeric>
#include <utility>

namespace ddpsim {

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

double SplitMix64::uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

std::vector<std::vector<double>> latin_hypercube(int n, int k, uint64_t seed) {
  std::vector<std::vector<double>> design(n, std::vector<double>(k, 0.5));
  SplitMix64 rng(seed);
  std::vector<int> strata(n);
  for (int j = 0; j < k; ++j) {
    std::iota(strata.begin(), strata.end(), 0);
    for (int i = n - 1; i > 0; --i) {  // Fisher-Yates with our own generator
      const int pick = static_cast<int>(rng.next() % static_cast<uint64_t>(i + 1));
      std::swap(strata[i], strata[pick]);
    }
    for (int i = 0; i < n; ++i) design[i][j] = (strata[i] + rng.uniform()) / n;
  }
  return design;
}

}  // namespace ddpsim
