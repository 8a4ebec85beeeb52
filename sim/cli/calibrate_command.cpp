// ddpsim calibrate: writes a calibration profile, or a platform calibration.
//   --import-nccl-tests LOG -o profile.yaml   fits alpha-beta ranges to a real nccl-tests run,
//                                              in-process (no CUDA needed).
//   --import-torch-trace TRACE --model-file M.yaml --batch B -o profile.yaml
//                                              per-layer times, optimizer and collectives of a
//                                              torch.profiler trace (sim/measurements/
//                                              torch_trace_import.h), in-process.
//   --fit-platform LOG... --scenario S [--min-bytes SIZE] -o platform.yaml
//                                              fits the cluster's link parameters through the
//                                              simulator (calibration/platform_fit.h), on the
//                                              sizes at or above SIZE when given.
//   --model M --batch B --precision P -o ...  runs the CUDA harness `ddpsim-calibrate` (built
//                                              next to this binary where CUDA was found, or named
//                                              by $DDPSIM_CALIBRATE) with the same options.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/cli/option_checks.h"
#include "sim/input/scenario_loader.h"
#include "sim/input/torch_trace_import.h"
#include "sim/link_fit/collective_sweep_sim.h"
#include "sim/link_fit/platform_fit.h"
#include "sim/measurements/nccl_tests_import.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/model/model_file.h"
#include "sim/model/model_zoo.h"
#include "sim/output/atomic_file.h"
#include "sim/output/output_folder.h"
#include "sim/process/install_paths.h"
#include "sim/scenario/enum_names.h"
#include "sim/text/input_error.h"
#include "sim/text/input_file.h"

namespace ddpsim::cli {
namespace {

struct Options {
  std::vector<std::string> fit_logs;
  std::string scenario;
  std::vector<std::string> overrides;
  std::string import_log;
  std::string import_trace;
  std::string model_file;
  std::string optimizer;
  int warmup_steps = -1;
  std::string op = "all_reduce";
  std::string algorithm = "auto";
  int table = 0;
  double tolerance = 0.03;
  std::string fit_min_bytes;  // --min-bytes: --fit-platform fits only the sizes at or above it
  std::string output;
  // Harness options, passed through.
  std::string model;
  std::vector<int> batches;
  std::string precision = "fp32";
  int sequence_length = 0;
  int repeats = 20;
  int warmup = 5;
  int device = 0;
  std::string max_collective_bytes;
  bool no_collectives = false;
  bool no_layers = false;
} opts;

const SourceLocation kCommandLine{"<command line>", 0, 0};

int import_nccl_tests_log() {
  const auto op = parse_collective_op_key(opts.op);
  if (!op)
    throw InputError(kCommandLine, "--op: unknown collective '" + opts.op +
                                       "'; allowed: all_reduce, all_gather, reduce_scatter, "
                                       "broadcast");
  const auto algorithm = enum_from_name<AllReduceAlgorithm>(opts.algorithm);
  if (!algorithm)
    throw InputError(kCommandLine, "--algorithm: unknown algorithm '" + opts.algorithm +
                                       "'; allowed: " + enum_choices<AllReduceAlgorithm>());
  AlphaBetaFitOptions fit;
  fit.tolerance = opts.tolerance;
  NcclTestsLog log;
  const CollectiveSweep sweep =
      import_nccl_tests(opts.import_log, *op, *algorithm, fit, &log, opts.table);
  const DeviceInfo device = device_from_log(log);

  // An existing profile keeps everything else; the imported table replaces its namesake. Its
  // device block is the log's unless it already describes a GPU, which must be the log's.
  CalibrationProfile profile;
  const bool existing = std::filesystem::exists(opts.output);
  if (existing) profile = load_profile(opts.output);
  if (profile.device.name.empty()) {
    profile.device = device;
  } else if (!device.name.empty() && device.name != profile.device.name) {
    throw InputError({opts.import_log, log.device_line, 1},
                     "measured on " + device.name + ", but " + opts.output + " describes " +
                         profile.device.name + ": write the table to another profile");
  }
  std::printf("%s", format_sweep_table(sweep).c_str());
  bool replaced = false;
  for (CollectiveSweep& s : profile.collectives) {
    if (s.op == sweep.op && s.algorithm == sweep.algorithm) {
      s = sweep;
      replaced = true;
    }
  }
  if (!replaced) profile.collectives.push_back(sweep);
  write_profile(profile, opts.output);
  std::printf("%s %s table (%s) %s %s\n", replaced ? "replaced the" : "wrote the",
              collective_op_key(sweep.op), algorithm_name(sweep.algorithm), existing ? "in" : "to",
              opts.output.c_str());
  return kExitOk;
}

// A profile at opts.output keeps everything else; the imported run replaces one of the same
// model, batch and precision, and imported collective tables are added.
int import_torch_trace() {
  TorchTraceOptions o;
  Model model_file;
  if (!opts.model_file.empty()) {
    model_file = load_model_file(opts.model_file);
    o.model_file = &model_file;
  } else if (opts.model.empty()) {
    throw InputError(kCommandLine,
                     "--import-torch-trace needs --model-file M.yaml (the exported model: layer "
                     "kinds, FLOPs, parameter count) or at least --model NAME");
  }
  o.model = opts.model;
  if (opts.batches.size() != 1)
    throw InputError(kCommandLine,
                     "--import-torch-trace needs --batch B once: the samples per step the trace "
                     "ran");
  o.batch = opts.batches.front();
  const auto precision = enum_from_name<Precision>(opts.precision);
  if (!precision)
    throw InputError(kCommandLine, "--precision: unknown precision '" + opts.precision +
                                       "'; allowed: " + enum_choices<Precision>());
  o.precision = *precision;
  if (!opts.optimizer.empty()) {
    o.optimizer = enum_from_name<Optimizer>(opts.optimizer);
    if (!o.optimizer)
      throw InputError(kCommandLine, "--optimizer: unknown optimizer '" + opts.optimizer +
                                         "'; allowed: " + enum_choices<Optimizer>() +
                                         enum_alias_note<Optimizer>());
  }
  o.warmup_steps = opts.warmup_steps;
  const TorchTraceImport imported = import_torch_trace(opts.import_trace, o);
  std::printf("%s", format_torch_trace_summary(imported).c_str());

  CalibrationProfile profile;
  const bool existing = std::filesystem::exists(opts.output);
  if (existing) profile = load_profile(opts.output);
  const ModelRun& run = imported.run;
  auto same = [&](const ModelRun& r) {
    return r.model == run.model && r.batch == run.batch && r.precision == run.precision;
  };
  profile.runs.erase(std::remove_if(profile.runs.begin(), profile.runs.end(), same),
                     profile.runs.end());
  profile.runs.push_back(run);
  for (const CollectiveSweep& sweep : imported.collectives) profile.collectives.push_back(sweep);
  if (profile.device.name.empty())
    profile.device.name = !imported.device.empty() ? imported.device
                          : imported.gpu           ? "GPU (torch.profiler trace)"
                                                   : "CPU (torch.profiler trace)";
  profile.notes.push_back("imported from the torch.profiler trace " + opts.import_trace + " (" +
                          imported.layers_from + ", " + std::to_string(imported.steps) + " steps)");
  for (const std::string& n : imported.notes) profile.notes.push_back(n);
  write_profile(profile, opts.output);
  std::printf("wrote the run %s (batch %d, %s) %s %s\n", run.model.c_str(), run.batch,
              precision_name(run.precision), existing ? "in" : "to", opts.output.c_str());
  return kExitOk;
}

// "LOG" or "LOG@NODESxGPUS" (for a log without '# Rank' lines).
MeasuredSweep read_fit_log(const std::string& argument) {
  std::string path = argument;
  int nodes = 0, gpus_per_node = 0;
  const size_t at = argument.rfind('@');
  if (at != std::string::npos && !std::filesystem::exists(argument)) {
    path = argument.substr(0, at);
    const std::string shape = argument.substr(at + 1);
    char x = 0;
    char rest = 0;
    if (std::sscanf(shape.c_str(), "%d%c%d%c", &nodes, &x, &gpus_per_node, &rest) != 3 ||
        x != 'x' || nodes < 1 || gpus_per_node < 1)
      throw InputError(kCommandLine, "--fit-platform " + argument +
                                         ": expected LOG or LOG@NODESxGPUS_PER_NODE, e.g. "
                                         "run.log@2x8");
  }
  const NcclTestsLog log = parse_nccl_tests_log(read_regular_file(path, "nccl-tests log"), path,
                                                CollectiveOp::kAllReduce, opts.table);
  MeasuredSweep m = measured_sweep(log, path);
  if (!opts.fit_min_bytes.empty()) {
    const double min_bytes = nccl_tests_size_option("--min-bytes", opts.fit_min_bytes);
    m.samples.erase(std::remove_if(m.samples.begin(), m.samples.end(),
                                   [&](const CollectiveSample& s) { return s.bytes < min_bytes; }),
                    m.samples.end());
    if (m.samples.size() < 2)
      throw InputError(kCommandLine,
                       fmt::format("--min-bytes {}: {} has {} size{} at or above it, a fit "
                                   "needs at least 2",
                                   opts.fit_min_bytes, path, m.samples.size(),
                                   m.samples.size() == 1 ? "" : "s"));
  }
  if (nodes > 0) {
    if (log.ranks > 0 && (log.ranks != nodes * gpus_per_node || log.nodes != nodes))
      throw InputError({path, log.device_line, 1},
                       fmt::format("its rank lines say {} GPUs on {} nodes, not the {}x{} "
                                   "given after '@'",
                                   log.ranks, log.nodes, nodes, gpus_per_node));
    m.nodes = nodes;
    m.gpus = nodes * gpus_per_node;
  }
  return m;
}

int fit_platform_logs() {
  // With no log after it, --fit-platform takes the next option for one ("--scenario"), and the
  // scenario or output it names is then reported missing.
  for (const std::string& argument : opts.fit_logs)
    if (!argument.empty() && argument[0] == '-')
      throw InputError(kCommandLine,
                       "--fit-platform: expected nccl-tests all_reduce logs (LOG or "
                       "LOG@NODESxGPUS_PER_NODE) right after it, got the option '" +
                           argument + "'");
  if (opts.scenario.empty())
    throw InputError(kCommandLine,
                     "--fit-platform needs --scenario FILE: the fit simulates that cluster "
                     "(its GPUs per node, NICs, links, all-reduce algorithm) and takes its link "
                     "values as the starting point and the line rates");
  const Scenario scenario = load_scenario(opts.scenario, opts.overrides);
  std::vector<MeasuredSweep> logs;
  for (const std::string& argument : opts.fit_logs) logs.push_back(read_fit_log(argument));
  // A log of several nodes fits the network: the scenario must have one to start from.
  for (const MeasuredSweep& m : logs)
    if (m.nodes > 1 && !(scenario.cluster.nic.bandwidth > 0))
      throw InputError(
          {opts.scenario, 1, 1},
          fmt::format("{} ran on {} nodes, but this scenario's cluster has no NIC bandwidth "
                      "(cluster.nic.bandwidth) for the fit to start from and keep as the line "
                      "rate; allowed: a scenario with cluster.nic: {{count, bandwidth}}",
                      m.log, m.nodes));
  PlatformFit fit = fit_platform(scenario.cluster, logs, all_reduce_times(scenario));
  fit.calibration.scenario = opts.scenario;
  std::printf("%s", format_platform_fit(fit).c_str());
  write_platform_calibration(fit.calibration, opts.output);
  std::printf("wrote %zu link parameter%s to %s (use it with cluster.calibration: %s)\n",
              fit.calibration.parameters.size(), fit.calibration.parameters.size() == 1 ? "" : "s",
              opts.output.c_str(), opts.output.c_str());
  std::fflush(stdout);  // the warnings follow the table they refer to
  for (const FittedParameter& p : fit.calibration.parameters)
    if (!p.flag.empty())
      std::fprintf(stderr, "warning: %s: %s\n", p.parameter.c_str(), p.flag.c_str());
  return kExitOk;
}

int run_harness() {
  ModelSpec spec;
  spec.name = opts.model;
  spec.sequence_length = opts.sequence_length;
  if (opts.model == "mlp") spec.mlp_layers = {1024, 4096, 4096, 1024};
  Model model;
  std::string error;
  if (!opts.model.empty() && !build_model(spec, &model, &error))
    throw InputError(kCommandLine, "--model: " + error);
  const auto precision = enum_from_name<Precision>(opts.precision);
  if (!precision)
    throw InputError(kCommandLine, "--precision: unknown precision '" + opts.precision +
                                       "'; allowed: " + enum_choices<Precision>());
  // The harness has no fp8 GEMM kernels (kernels/gemm.h): refuse here, before any GPU work.
  if (*precision == Precision::kFp8)
    throw InputError(kCommandLine,
                     "--precision fp8: the harness times fp32, tf32, fp16 and bf16 only; a "
                     "scenario at fp8 takes its GEMM rate from the GPU's datasheet");

  std::string harness;
  if (const char* env = std::getenv("DDPSIM_CALIBRATE"); env != nullptr && *env != '\0') {
    harness = env;
    if (::access(harness.c_str(), X_OK) != 0) {
      std::fprintf(stderr, "error: DDPSIM_CALIBRATE=%s is not an executable file\n", env);
      return kExitNoGpu;
    }
  } else {
    harness = executable_directory() + "/ddpsim-calibrate";
    if (::access(harness.c_str(), X_OK) != 0) {
      // Say how to get it, and what works without it (docs/installing.md, docs/calibration.md).
      std::fprintf(stderr,
                   "calibrate was not built: CUDA toolkit not found at configure time\n"
                   "(expected %s; or set DDPSIM_CALIBRATE to the harness binary)\n"
                   "to build it: on a machine with the CUDA toolkit, NCCL and CUPTI (nvcc on PATH "
                   "or under /usr/local/cuda), cmake -S . -B build && cmake --build build "
                   "--target ddpsim-calibrate\n"
                   "without a GPU: ddpsim calibrate --import-torch-trace TRACE (a torch.profiler "
                   "trace) or --import-nccl-tests LOG (an nccl-tests log)\n",
                   harness.c_str());
      return kExitNoGpu;
    }
  }

  std::vector<std::string> args = {harness, "--precision", opts.precision, "-o", opts.output};
  if (!opts.model.empty()) {
    args.push_back("--model");
    args.push_back(opts.model);
  }
  for (int b : opts.batches) {
    args.push_back("--batch");
    args.push_back(std::to_string(b));
  }
  auto add = [&](const char* flag, const std::string& value) {
    args.push_back(flag);
    args.push_back(value);
  };
  if (opts.sequence_length > 0) add("--seq", std::to_string(opts.sequence_length));
  add("--repeats", std::to_string(opts.repeats));
  add("--warmup", std::to_string(opts.warmup));
  add("--device", std::to_string(opts.device));
  if (!opts.max_collective_bytes.empty()) add("--max-bytes", opts.max_collective_bytes);
  if (opts.no_collectives) args.push_back("--no-collectives");
  if (opts.no_layers) args.push_back("--no-layers");

  std::vector<char*> argv;
  for (std::string& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::fflush(stdout);
  ::execv(harness.c_str(), argv.data());
  std::perror(("cannot run " + harness).c_str());
  return kExitFailure;
}

int run() {
  check_output_file(opts.output, "-o");
  if (!opts.fit_logs.empty()) return fit_platform_logs();
  if (!opts.import_log.empty()) return import_nccl_tests_log();
  if (!opts.import_trace.empty()) return import_torch_trace();
  if (!opts.model.empty() || opts.no_layers) return run_harness();
  throw InputError(kCommandLine,
                   "calibrate needs --fit-platform LOG... --scenario FILE, --import-nccl-tests "
                   "LOG, --import-torch-trace TRACE, or --model NAME (or --no-layers) to run the "
                   "harness (see --help)");
}

const bool registered = register_command({
    "calibrate",
    "Measure this machine's GPU kernels, copies and NCCL collectives into a profile, or "
    "import an nccl-tests log or a torch.profiler trace",
    40,
    [](CLI::App* app) {
      auto* import = app->add_option("--import-nccl-tests", opts.import_log,
                                     "Fit alpha-beta ranges to the output of nccl-tests "
                                     "(all_reduce_perf ...) instead of running the harness");
      auto* fit = app->add_option("--fit-platform", opts.fit_logs,
                                  "Fit the cluster's link bandwidths and latencies through the "
                                  "simulator to nccl-tests all_reduce logs (one node: intra-node "
                                  "links; two or more: the network); LOG@NODESxGPUS for a log "
                                  "without '# Rank' lines")
                      ->excludes(import);
      auto* trace = app->add_option("--import-torch-trace", opts.import_trace,
                                    "Per-layer times, optimizer and collectives of a "
                                    "torch.profiler Chrome trace (see docs/model-import.md)")
                        ->excludes(import)
                        ->excludes(fit);
      app->add_option("--model-file", opts.model_file,
                      "--import-torch-trace: the model file exported for the traced model (layer "
                      "kinds, FLOPs, parameters)")
          ->needs(trace);
      app->add_option(
             "--optimizer", opts.optimizer,
             "--import-torch-trace: what the trace's optimizer is: sgd, momentum, adam, adamw "
             "(default: SGD is momentum, Adam/AdamW adam)")
          ->needs(trace);
      app->add_option("--warmup-steps", opts.warmup_steps,
                      "--import-torch-trace: steps to leave out (default: the first when there "
                      "are 3 or more)")
          ->check(CLI::NonNegativeNumber)
          ->needs(trace);
      app->add_option("--scenario", opts.scenario,
                      "--fit-platform: the scenario whose cluster the logs ran on")
          ->needs(fit);
      app->add_option("--set", opts.overrides,
                      "--fit-platform: override a scenario value (repeatable)")
          ->needs(fit);
      app->add_option("--min-bytes", opts.fit_min_bytes,
                      "--fit-platform: fit only the sizes at or above SIZE (e.g. 64M; "
                      "nccl-tests' size syntax)")
          ->needs(fit);
      app->add_option("--op", opts.op,
                      "Collective the imported log measured: all_reduce, all_gather, "
                      "reduce_scatter, broadcast")
          ->needs(import);
      app->add_option("--algorithm", opts.algorithm,
                      "Algorithm label of the imported table: auto (default: NCCL chose), or "
                      "the NCCL_ALGO the run forced (ring, tree, ...)")
          ->needs(import);
      app->add_option("--table", opts.table,
                      "When the log holds several tables of the collective (a README showing "
                      "two runs), import the N-th (1-based)")
          ->check(CLI::PositiveNumber);
      app->add_option("--tolerance", opts.tolerance,
                      "Relative error per point the alpha-beta split aims for")
          ->check(finite_number(1e-6) & CLI::Range(1e-6, 1.0));
      app->add_option("-o,--output", opts.output,
                      "Profile YAML to write (an existing one is updated in place)")
          ->required();
      auto* model = app->add_option("--model", opts.model,
                                    "Zoo model whose layers the harness times (see `ddpsim "
                                    "models`); with --import-torch-trace, the run's name")
                        ->excludes(import);
      app->add_option("--batch", opts.batches,
                      "Per-GPU batch size (repeatable for the harness; the trace's batch)")
          ->allow_extra_args(false)
          ->check(CLI::PositiveNumber);
      app->add_option("--precision", opts.precision,
                      "fp32, tf32, fp16, bf16 (layers and the overlap GEMM)");
      app->add_option("--seq", opts.sequence_length, "Sequence length (transformers)")
          ->check(CLI::NonNegativeNumber)
          ->needs(model);
      app->add_option("--repeats", opts.repeats, "Timed repeats per measurement")
          ->check(CLI::PositiveNumber);
      app->add_option("--warmup", opts.warmup, "Untimed warm-up runs")
          ->check(CLI::NonNegativeNumber);
      app->add_option("--device", opts.device, "CUDA device for kernels")
          ->check(CLI::NonNegativeNumber);
      app->add_option("--max-bytes", opts.max_collective_bytes,
                      "Largest collective size in the NCCL sweep (default 1GiB)");
      app->add_flag("--no-collectives", opts.no_collectives, "Skip the NCCL sweep");
      app->add_flag("--no-layers", opts.no_layers, "Only device ceilings and collectives");
    },
    run,
});

}  // namespace
}  // namespace ddpsim::cli
