// A seeded space-filling design: n points in [0, 1)^k, each of the k columns a Latin hypercube
// (every one of the n strata of [0, 1) holds exactly one point). Randomness comes from SplitMix64
// (Steele, Lea and Flood 2014), not std:: distributions, so the design is the same bytes on every
// standard library. Column j of the design always belongs to row j of the assumption table, so
// two scenarios drawn with one seed see the same world (common random numbers).
#pragma once

#include <cstdint>
#include <vector>

namespace ddpsim {

class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();
  double uniform();  // [0, 1), 53 bits
 private:
  uint64_t state_;
};

// design[i][j]: draw i, input j.
std::vector<std::vector<double>> latin_hypercube(int n, int k, uint64_t seed);

}  // namespace ddpsim
