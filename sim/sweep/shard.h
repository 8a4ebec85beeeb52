// Splitting a sweep over machines: shard i of n runs the points whose index is i modulo n, so n
// shards cover every point exactly once and each gets a similar mix of small and large points.
// `--shard i/n` counts from 0; a Slurm job array supplies it without the option
// (SLURM_ARRAY_TASK_ID, _MIN, _STEP and _COUNT, so --array=1-8 and --array=0-14:2 both work).
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace ddpsim {

struct Shard {
  size_t index = 0;
  size_t count = 1;

  bool owns(size_t point_index) const { return point_index % count == index; }
  // How many of points 0 .. total-1 this shard owns.
  size_t owned_of(size_t total) const { return total / count + (index < total % count ? 1 : 0); }
  bool whole() const { return count == 1; }
  std::string to_string() const;  // "2/8"
};

// Parses "i/n" with 0 <= i < n; InputError at "<--shard>" otherwise.
Shard parse_shard(const std::string& text);

// The shard a Slurm array task is, from the environment read through `getenv` (injectable for
// tests); nullopt outside a job array. Inconsistent variables are an InputError.
std::optional<Shard> shard_from_slurm(const std::function<const char*(const char*)>& getenv);

}  // namespace ddpsim
