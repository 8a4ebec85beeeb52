#include "sim/cli/option_checks.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <thread>

#include "sim/engine/trace_selection.h"
#include "sim/measurements/nccl_tests_format.h"
#include "sim/sweep/results_csv.h"
#include "sim/text/input_error.h"

namespace ddpsim::cli {

double nccl_tests_size_option(const std::string& flag, const std::string& text) {
  const auto bytes = parse_nccl_tests_size(text);
  if (!bytes || *bytes > 1e15)
    throw InputError(SourceLocation{"<command line>", 0, 0},
                     flag +
                         ": expected a size as nccl-tests takes it (an integer of bytes with an "
                         "optional K, M or G suffix, e.g. 8, 64K, 8G), got '" +
                         text + "'");
  return *bytes;
}

CLI::Validator finite_number(double min, bool exclusive) {
  const std::string bound = (exclusive ? "> " : ">= ") + format_number(min);
  return CLI::Validator(
      [min, exclusive, bound](std::string& text) -> std::string {
        char* end = nullptr;
        const double value = std::strtod(text.c_str(), &end);
        if (text.empty() || end != text.c_str() + text.size())
          return "expected a number " + bound + ", got '" + text + "'";
        if (!std::isfinite(value))
          return "expected a finite number " + bound + ", got '" + text + "'";
        if (exclusive ? !(value > min) : !(value >= min))
          return "expected a number " + bound + ", got " + text;
        return "";
      },
      min != 0    ? "FINITE"
      : exclusive ? "POSITIVE"
                  : "NONNEGATIVE");
}

CLI::Validator whole_number(long min) {
  const std::string bound = ">= " + std::to_string(min);
  return CLI::Validator(
      [min, bound](std::string& text) -> std::string {
        char* end = nullptr;
        errno = 0;
        const long long value = std::strtoll(text.c_str(), &end, 10);
        if (text.empty() || end != text.c_str() + text.size() || errno != 0 || value < min)
          return "expected a whole number " + bound + ", got '" + text + "'";
        return "";
      },
      min == 0   ? "NONNEGATIVE"
      : min == 1 ? "POSITIVE"
                 : bound);
}

CLI::Validator trace_gpus_spec() {
  return CLI::Validator(
      [](std::string& text) -> std::string {
        TraceGpus gpus;
        std::string error;
        return parse_trace_gpus(text, &gpus, &error) ? "" : error;
      },
      "auto|all|none|RANKS");
}

CLI::Option* add_repeatable(CLI::App* app, const std::string& name,
                            std::vector<std::string>& values, const std::string& help) {
  return app->add_option(name, values, help)->allow_extra_args(false)->take_all();
}

CLI::Option* add_jobs_option(CLI::App* app, int* jobs, const std::string& what) {
  return app->add_option("-j,--jobs", *jobs, what + " (processes; 0: one per CPU)")
      ->check(whole_number(0));
}

int resolve_jobs(int jobs) {
  return jobs > 0 ? jobs : std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

void add_uncertainty_options(CLI::App* app, UncertaintyFlags* flags, const std::string& help) {
  flags->option =
      app->add_option("--uncertainty", flags->draws,
                      help + " (N draws, default " + std::to_string(flags->default_draws) + ")")
          ->expected(0, 1)
          ->check(whole_number(2));
  app->add_option("--seed", flags->seed, "Seed of the uncertainty draws (same seed, same bytes)")
      ->check(whole_number(0));
}

}  // namespace ddpsim::cli
