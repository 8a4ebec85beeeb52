// ddpsim calibrate: writes a calibration profile.
//   --import-nccl-tests LOG -o profile.yaml   fits alpha-beta ranges to a real nccl-tests run,
//                                              in-process (no CUDA needed).
//   --model M --batch B --precision P -o ...  runs the CUDA harness `ddpsim-calibrate` (built
//                                              next to this binary where CUDA was found, or named
//                                              by $DDPSIM_CALIBRATE) with the same options.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "sim/cli/command.h"
#include "sim/model/model_zoo.h"
#include "sim/profile/nccl_tests_import.h"
#include "sim/profile/profile_yaml.h"
#include "sim/scenario/enum_names.h"
#include "sim/util/input_error.h"

namespace ddpsim::cli {
namespace {

struct Options {
  std::string import_log;
  std::string op = "all_reduce";
  std::string algorithm = "auto";
  double tolerance = 0.03;
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
  const CollectiveSweep sweep = import_nccl_tests(opts.import_log, *op, *algorithm, fit);
  std::printf("%s", format_sweep_table(sweep).c_str());

  // An existing profile keeps everything else; the imported table replaces its namesake.
  CalibrationProfile profile;
  const bool existing = std::filesystem::exists(opts.output);
  if (existing) profile = load_profile(opts.output);
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

std::string self_directory() {
  std::vector<char> buf(4096);
  const ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0) return ".";
  return std::filesystem::path(std::string(buf.data(), static_cast<size_t>(n)))
      .parent_path()
      .string();
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
  if (!enum_from_name<Precision>(opts.precision))
    throw InputError(kCommandLine, "--precision: unknown precision '" + opts.precision +
                                       "'; allowed: " + enum_choices<Precision>());

  std::string harness;
  if (const char* env = std::getenv("DDPSIM_CALIBRATE"); env != nullptr && *env != '\0') {
    harness = env;
    if (::access(harness.c_str(), X_OK) != 0) {
      std::fprintf(stderr, "error: DDPSIM_CALIBRATE=%s is not an executable file\n", env);
      return kExitNoGpu;
    }
  } else {
    harness = self_directory() + "/ddpsim-calibrate";
    if (::access(harness.c_str(), X_OK) != 0) {
      std::fprintf(stderr,
                   "calibrate was not built: CUDA toolkit not found at configure time\n"
                   "(expected %s; or set DDPSIM_CALIBRATE to the harness binary)\n",
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
  if (!opts.import_log.empty()) return import_nccl_tests_log();
  if (!opts.model.empty() || opts.no_layers) return run_harness();
  throw InputError(kCommandLine,
                   "calibrate needs --import-nccl-tests LOG, or --model NAME (or --no-layers) "
                   "to run the harness (see --help)");
}

const bool registered = register_command({
    "calibrate",
    "Measure this machine's GPU kernels, copies and NCCL collectives into a profile, or "
    "import an nccl-tests log",
    40,
    [](CLI::App* app) {
      auto* import = app->add_option("--import-nccl-tests", opts.import_log,
                                     "Fit alpha-beta ranges to the output of nccl-tests "
                                     "(all_reduce_perf ...) instead of running the harness")
                         ->check(CLI::ExistingFile);
      app->add_option("--op", opts.op,
                      "Collective the imported log measured: all_reduce (default), all_gather, "
                      "reduce_scatter, broadcast")
          ->needs(import);
      app->add_option("--algorithm", opts.algorithm,
                      "Algorithm label of the imported table: auto (default: NCCL chose), or "
                      "the NCCL_ALGO the run forced (ring, tree, ...)")
          ->needs(import);
      app->add_option("--tolerance", opts.tolerance,
                      "Relative error per point the alpha-beta split aims for (default 0.03)")
          ->check(CLI::Range(1e-6, 1.0));
      app->add_option("-o,--output", opts.output,
                      "Profile YAML to write (an existing one is updated in place)")
          ->required();
      auto* model = app->add_option("--model", opts.model,
                                    "Zoo model whose layers the harness times (see `ddpsim "
                                    "models`)")
                        ->excludes(import);
      app->add_option("--batch", opts.batches, "Per-GPU batch size (repeatable)")
          ->check(CLI::PositiveNumber)
          ->needs(model);
      app->add_option("--precision", opts.precision,
                      "fp32 (default), tf32, fp16, bf16 (layers and the overlap GEMM)");
      app->add_option("--seq", opts.sequence_length, "Sequence length (transformers)")
          ->check(CLI::NonNegativeNumber)
          ->needs(model);
      app->add_option("--repeats", opts.repeats, "Timed repeats per measurement (default 20)")
          ->check(CLI::PositiveNumber);
      app->add_option("--warmup", opts.warmup, "Untimed warm-up runs (default 5)")
          ->check(CLI::NonNegativeNumber);
      app->add_option("--device", opts.device, "CUDA device for kernels (default 0)")
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
