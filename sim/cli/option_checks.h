// Option helpers shared by the subcommands. CLI11's own range checks compare with < and >, so
// NaN passes them; and a repeatable option takes every following word unless told otherwise,
// so `--set a=1 scenario.yaml` would swallow the scenario.
#pragma once

#include <CLI/CLI.hpp>
#include <string>
#include <vector>

namespace ddpsim::cli {

// A finite number >= min (> min when `exclusive`); NaN and infinities are refused by name.
CLI::Validator finite_number(double min, bool exclusive = false);

// A whole number >= min, refused by name when it is NaN, infinite or fractional (CLI11 would
// only say that it could not convert it).
CLI::Validator whole_number(long min);

// A size as nccl-tests takes it (bytes with an optional K, M or G suffix: 8, 64K, 8G), at most
// 1e15 bytes; an InputError naming `flag` otherwise.
double nccl_tests_size_option(const std::string& flag, const std::string& text);

// --trace-gpus: auto, all, none or ranks such as 0,5,8-15 (trace_selection.h).
CLI::Validator trace_gpus_spec();

// A repeatable option that takes exactly one value per occurrence (`--set a=1 --set b=2`).
CLI::Option* add_repeatable(CLI::App* app, const std::string& name,
                            std::vector<std::string>& values, const std::string& help);

// -j/--jobs, the same in sweep, compare and validate: N processes, 0 (the default) one per CPU.
CLI::Option* add_jobs_option(CLI::App* app, int* jobs, const std::string& what);

// The process count -j N asks for: N, or the CPUs there are (at least 1) for 0.
int resolve_jobs(int jobs);

// --uncertainty [N] and --seed of simulate, compare and validate (docs/assumptions.md).
struct UncertaintyFlags {
  int default_draws = 32;
  std::string draws;  // "" when --uncertainty is given without a number
  long long seed = 1;
  CLI::Option* option = nullptr;
  bool given() const { return option != nullptr && option->count() > 0; }
  int samples() const { return draws.empty() ? default_draws : std::stoi(draws); }
};
void add_uncertainty_options(CLI::App* app, UncertaintyFlags* flags, const std::string& help);

}  // namespace ddpsim::cli
