#include "sim/sweep/shard.h"

#include <cerrno>
#include <cstdlib>

#include "sim/text/input_error.h"

namespace ddpsim {
namespace {

// A whole non-negative decimal number, or nullopt.
std::optional<long long> parse_count(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) {
    return std::nullopt;
  }
  errno = 0;
  const long long value = std::strtoll(text.c_str(), nullptr, 10);
  if (errno != 0) return std::nullopt;
  return value;
}

}  // namespace

std::string Shard::to_string() const { return std::to_string(index) + "/" + std::to_string(count); }

Shard parse_shard(const std::string& text) {
  const SourceLocation where{"<--shard " + text + ">", 0, 0};
  const size_t slash = text.find('/');
  const auto index = parse_count(text.substr(0, slash));
  const auto count =
      slash == std::string::npos ? std::nullopt : parse_count(text.substr(slash + 1));
  if (!index || !count) {
    throw InputError(where,
                     "expected i/n with whole numbers 0 <= i < n (e.g. 0/4), got '" + text + "'");
  }
  if (*count < 1 || *index >= *count) {
    throw InputError(where, "shard index must be in 0.." + std::to_string(*count - 1) + " for " +
                                std::to_string(*count) + " shards, got '" + text + "'");
  }
  return Shard{static_cast<size_t>(*index), static_cast<size_t>(*count)};
}

std::optional<Shard> shard_from_slurm(const std::function<const char*(const char*)>& getenv) {
  const char* id_text = getenv("SLURM_ARRAY_TASK_ID");
  const char* count_text = getenv("SLURM_ARRAY_TASK_COUNT");
  if (!id_text || !count_text) return std::nullopt;
  auto number = [&](const char* name, const char* text, long long fallback) {
    if (!text) return fallback;
    const auto value = parse_count(text);
    if (!value) {
      throw InputError(SourceLocation{std::string("<environment ") + name + ">", 0, 0},
                       std::string("expected a whole number, got '") + text + "'");
    }
    return *value;
  };
  const long long id = number("SLURM_ARRAY_TASK_ID", id_text, 0);
  const long long count = number("SLURM_ARRAY_TASK_COUNT", count_text, 1);
  const long long min = number("SLURM_ARRAY_TASK_MIN", getenv("SLURM_ARRAY_TASK_MIN"), 0);
  long long step = number("SLURM_ARRAY_TASK_STEP", getenv("SLURM_ARRAY_TASK_STEP"), 1);
  if (step < 1) step = 1;
  const long long index = (id - min) / step;
  if (count < 1 || id < min || (id - min) % step != 0 || index >= count) {
    throw InputError(SourceLocation{"<environment SLURM_ARRAY_TASK_ID>", 0, 0},
                     "cannot place task " + std::to_string(id) + " in a job array of " +
                         std::to_string(count) + " tasks starting at " + std::to_string(min) +
                         " with step " + std::to_string(step) + "; pass --shard i/n explicitly");
  }
  return Shard{static_cast<size_t>(index), static_cast<size_t>(count)};
}

}  // namespace ddpsim
