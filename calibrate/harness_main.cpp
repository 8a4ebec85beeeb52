// ddpsim-calibrate: measures this machine into a calibration profile (sim/measurements/).
//   1. device ceilings: GEMM per precision, D2D, pinned H2D / D2H copies
//   2. every layer of a zoo model at each batch size, forward and backward, CUDA-event medians
//      after warm-up, cross-checked with CUPTI kernel records; optimizer updates; roofline
//      efficiency per layer kind
//   3. NCCL all-reduce / all-gather / reduce-scatter / broadcast sweeps over the local GPUs
//   4. GEMM slowdown while a copy or an all-reduce runs beside it
// An existing profile at -o is updated: same model/batch/precision runs, ceilings, overlap and
// this harness's own sweeps are replaced; imported nccl-tests tables are kept.
// Exit codes: 0 ok, 1 a GPU/library error, 2 bad input, 3 no GPU present.
#include <cuda_runtime_api.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "calibrate/ceilings.h"
#include "calibrate/collective_sweep.h"
#include "calibrate/cupti_trace.h"
#include "calibrate/device_info.h"
#include "calibrate/event_timer.h"
#include "calibrate/layer_runner.h"
#include "calibrate/overlap.h"
#include "kernels/check.h"
#include "kernels/cudnn_ops.h"
#include "kernels/device_buffer.h"
#include "kernels/device_probe.h"
#include "kernels/elementwise.h"
#include "kernels/gemm.h"
#include "kernels/optimizer.h"
#include "sim/measurements/profile_yaml.h"
#include "sim/measurements/roofline_fit.h"
#include "sim/model/model_zoo.h"
#include "sim/scenario/enum_names.h"
#include "sim/text/input_error.h"
#include "sim/text/units.h"

namespace ddpsim::calibrate {
namespace {

struct Options {
  std::string model;
  std::vector<int> batches;
  std::string precision = "fp32";
  int sequence_length = 0;
  int repeats = 20;
  int warmup = 5;
  int device = 0;
  std::string max_bytes = "1GiB";
  bool no_collectives = false;
  bool no_layers = false;
  std::string output;
};

const SourceLocation kCommandLine{"<command line>", 0, 0};

// Whether the CUDA context survived an error (library status errors leave it usable; a sticky
// kernel fault does not, and everything after it would fail too).
bool device_healthy() {
  cudaGetLastError();
  return cudaDeviceSynchronize() == cudaSuccess;
}

template <class T, class Same>
void replace_or_append(std::vector<T>& items, T item, Same same) {
  for (T& existing : items) {
    if (same(existing, item)) {
      existing = std::move(item);
      return;
    }
  }
  items.push_back(std::move(item));
}

void measure_ceilings(CalibrationProfile& profile, kernels::Blas& blas, cudaStream_t stream,
                      const TimingOptions& t) {
  std::printf("== device ceilings\n");
  int device = 0;
  DDPSIM_CUDA_CHECK(cudaGetDevice(&device));
  cudaDeviceProp prop{};
  DDPSIM_CUDA_CHECK(cudaGetDeviceProperties(&prop, device));
  std::vector<Precision> precisions = {Precision::kFp32};
  if (prop.major >= 7) precisions.push_back(Precision::kFp16);
  if (prop.major >= 8) {
    precisions.push_back(Precision::kTf32);
    precisions.push_back(Precision::kBf16);
  }
  for (Precision p : precisions) {
    try {
      GemmCeiling g = measure_gemm(blas, p, 8192, t);
      std::printf("  GEMM %-4s 8192^3   %8.1f TFLOP/s  (median %.3f ms, spread %.2f %%)\n",
                  precision_name(p), g.flops / 1e12, g.time.median * 1e3, 100 * g.time.spread());
      replace_or_append(profile.ceilings.gemm, g, [](const GemmCeiling& a, const GemmCeiling& b) {
        return a.precision == b.precision;
      });
    } catch (const kernels::GpuError& e) {
      if (!e.out_of_memory() && !device_healthy()) throw;
      std::printf("  GEMM %-4s skipped: %s\n", precision_name(p), e.what());
      profile.notes.push_back(std::string("GEMM ceiling ") + precision_name(p) +
                              " not measured: " + e.what());
    }
  }
  size_t free_bytes = 0, total = 0;
  DDPSIM_CUDA_CHECK(cudaMemGetInfo(&free_bytes, &total));
  const size_t d2d_bytes = std::min<size_t>(size_t{1} << 30, free_bytes / 4);
  profile.ceilings.d2d = measure_copy(stream, CopyKind::kDeviceToDevice, d2d_bytes, t);
  profile.ceilings.h2d = measure_copy(stream, CopyKind::kHostToDevice, size_t{256} << 20, t);
  profile.ceilings.d2h = measure_copy(stream, CopyKind::kDeviceToHost, size_t{256} << 20, t);
  std::printf("  D2D copy  %s     %8.1f GB/s (read + write)\n",
              kernels::format_bytes(d2d_bytes).c_str(), profile.ceilings.d2d->bandwidth / 1e9);
  std::printf("  H2D copy  256 MiB pinned %6.1f GB/s\n", profile.ceilings.h2d->bandwidth / 1e9);
  std::printf("  D2H copy  256 MiB pinned %6.1f GB/s\n", profile.ceilings.d2h->bandwidth / 1e9);
}

std::vector<OptimizerTiming> measure_optimizers(int64_t params, cudaStream_t stream,
                                                const TimingOptions& t) {
  std::vector<OptimizerTiming> out;
  kernels::ScopedLayer scope("optimizer update");
  const size_t bytes = static_cast<size_t>(params) * sizeof(float);
  kernels::DeviceBuffer w(bytes), g(bytes), m(bytes), v(bytes);
  for (kernels::DeviceBuffer* b : {&w, &g, &m, &v})
    kernels::fill_uniform(kernels::DType::kF32, b->get(), params, 0.f, 0.01f, 3, stream);
  OptimizerTiming sgd{Optimizer::kMomentum, params, {}};
  sgd.time = time_on_stream(stream, t.warmup, t.repeats, [&] {
    kernels::sgd_momentum_step(w.as<float>(), g.as<float>(), m.as<float>(), params, false, {},
                               stream);
  });
  OptimizerTiming adam{Optimizer::kAdam, params, {}};
  int step = 1;
  adam.time = time_on_stream(stream, t.warmup, t.repeats, [&] {
    kernels::adam_step(w.as<float>(), g.as<float>(), m.as<float>(), v.as<float>(), params, step++,
                       {}, stream);
  });
  out.push_back(sgd);
  out.push_back(adam);
  return out;
}

ModelRun measure_model(const Model& model, int batch, Precision precision, const LayerContext& ctx,
                       KernelTracer& tracer, const TimingOptions& t) {
  ModelRun run;
  run.model = model.name;
  run.batch = batch;
  run.precision = precision;
  run.sequence_length = model.sequence_length;
  std::printf("== %s, batch %d, %s: %zu layers\n", model.name.c_str(), batch,
              precision_name(precision), model.layers.size());
  std::printf("  %-40s %-11s %11s %7s %11s %7s %8s\n", "layer", "kind", "fwd (us)", "spread",
              "bwd (us)", "spread", "kernels");
  for (const Layer& layer : model.layers) {
    try {
      LayerWork work = build_layer_work(layer, batch, precision, ctx);
      LayerTiming timing;
      timing.name = layer.name;
      timing.kind = layer.kind;
      {
        kernels::ScopedLayer scope(layer.name + " forward");
        timing.fwd = time_on_stream(ctx.stream, t.warmup, t.repeats, work.forward);
        timing.fwd_trace = tracer.trace(ctx.stream, work.forward);
      }
      {
        kernels::ScopedLayer scope(layer.name + " backward");
        timing.bwd = time_on_stream(ctx.stream, t.warmup, t.repeats, work.backward);
        timing.bwd_trace = tracer.trace(ctx.stream, work.backward);
      }
      timing.fwd_flops = work.fwd_flops;
      timing.bwd_flops = work.bwd_flops;
      timing.fwd_bytes = work.fwd_bytes;
      timing.bwd_bytes = work.bwd_bytes;
      std::printf("  %-40s %-11s %11.2f %6.2f%% %11.2f %6.2f%% %4d+%-4d %s\n", layer.name.c_str(),
                  layer_kind_key(layer.kind), timing.fwd.median * 1e6, 100 * timing.fwd.spread(),
                  timing.bwd.median * 1e6, 100 * timing.bwd.spread(), timing.fwd_trace.kernels,
                  timing.bwd_trace.kernels, work.detail.c_str());
      run.layers.push_back(std::move(timing));
    } catch (const UnsupportedLayer& e) {
      std::printf("  %-40s skipped: %s\n", layer.name.c_str(), e.what());
      run.skipped.push_back({layer.name, layer.kind, e.what()});
    } catch (const kernels::GpuError& e) {
      if (!e.out_of_memory() && !device_healthy()) throw;
      const std::string reason =
          (e.out_of_memory() ? "out of memory at batch " + std::to_string(batch) + ": " : "") +
          std::string(e.what());
      std::printf("  %-40s skipped: %s\n", layer.name.c_str(), reason.c_str());
      run.skipped.push_back({layer.name, layer.kind, reason});
    }
  }
  try {
    run.optimizer = measure_optimizers(model.params(), ctx.stream, t);
    for (const OptimizerTiming& o : run.optimizer)
      std::printf("  optimizer %-8s %lld params %11.2f us\n", optimizer_name(o.optimizer),
                  static_cast<long long>(o.params), o.time.median * 1e6);
  } catch (const kernels::GpuError& e) {
    if (!e.out_of_memory() && !device_healthy()) throw;
    std::printf("  optimizer update skipped: %s\n", e.what());
  }
  return run;
}

int run(const Options& o) {
  const auto precision = enum_from_name<Precision>(o.precision);
  if (!precision)
    throw InputError(kCommandLine, "--precision: unknown precision '" + o.precision +
                                       "'; allowed: " + enum_choices<Precision>());
  // The kernels have no fp8 GEMM path (kernels/gemm.h); an fp8 run would time fp32 GEMMs.
  if (*precision == Precision::kFp8)
    throw InputError(kCommandLine,
                     "--precision fp8: the harness times fp32, tf32, fp16 and bf16 only; a "
                     "scenario at fp8 takes its GEMM rate from the GPU's datasheet");
  const units::Parsed max_bytes = units::parse(o.max_bytes, units::Kind::kBytes, true);
  if (!max_bytes.value || *max_bytes.value < 8)
    throw InputError(kCommandLine, "--max-bytes: " + (max_bytes.value ? std::string("at least 8 B")
                                                                      : max_bytes.error));
  Model model;
  if (!o.no_layers) {
    if (o.model.empty()) throw InputError(kCommandLine, "--model is required (or --no-layers)");
    ModelSpec spec;
    spec.name = o.model;
    spec.sequence_length = o.sequence_length;
    if (o.model == "mlp") spec.mlp_layers = {1024, 4096, 4096, 1024};
    std::string error;
    if (!build_model(spec, &model, &error)) throw InputError(kCommandLine, "--model: " + error);
  }
  const std::vector<int> batches = o.batches.empty() ? std::vector<int>{32} : o.batches;
  const TimingOptions timing{o.warmup, o.repeats};

  CalibrationProfile profile;
  if (std::filesystem::exists(o.output)) profile = load_profile(o.output);

  // Input is checked first: a mistake is exit 2 on any machine, with or without a GPU.
  std::string reason;
  const int gpus = kernels::cuda_device_count(&reason);
  if (gpus == 0) {
    std::fprintf(stderr,
                 "ddpsim-calibrate: %s\nNothing was measured. Run the harness on a machine with "
                 "an NVIDIA GPU (see scenarios/profiles/README.md).\n",
                 reason.c_str());
    return kExitNoGpu;
  }
  if (o.device >= gpus)
    throw InputError(kCommandLine, "--device " + std::to_string(o.device) + ": this machine has " +
                                       std::to_string(gpus) + " GPU(s)");

  DDPSIM_CUDA_CHECK(cudaSetDevice(o.device));
  cudaStream_t stream = nullptr;
  DDPSIM_CUDA_CHECK(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking));
  kernels::Blas blas(stream);
  kernels::Dnn dnn(stream);
  DeviceInfo info = describe_device(o.device, gpus);
  info.cublas = blas.version();
  info.cudnn = kernels::Dnn::version();
  info.nccl = Communicator::version();
  if (!profile.device.name.empty() && profile.device.name != info.name)
    throw InputError({o.output, 0, 0}, "this profile was measured on " + profile.device.name +
                                           "; this GPU is " + info.name +
                                           ": write to another file");
  profile.device = info;
  std::printf(
      "ddpsim-calibrate: %s (sm %s, %d SMs, %s), %d GPU(s); driver %s, CUDA %s, cuBLAS "
      "%s, cuDNN %s, NCCL %s\n",
      info.name.c_str(), info.compute_capability.c_str(), info.multiprocessors,
      kernels::format_bytes(static_cast<size_t>(info.memory_bytes)).c_str(), gpus,
      info.driver.c_str(), info.cuda_runtime.c_str(), info.cublas.c_str(), info.cudnn.c_str(),
      info.nccl.c_str());

  measure_ceilings(profile, blas, stream, timing);

  if (!o.no_layers) {
    KernelTracer tracer;
    if (!tracer.available()) {
      std::printf("CUPTI unavailable, kernel traces are empty: %s\n", tracer.why().c_str());
      replace_or_append(profile.notes, "CUPTI unavailable: " + tracer.why(),
                        [](const std::string& a, const std::string& b) { return a == b; });
    }
    const LayerContext ctx{stream, &blas, &dnn};
    for (int batch : batches) {
      ModelRun run = measure_model(model, batch, *precision, ctx, tracer, timing);
      double peak = profile.ceilings.gemm_flops(*precision);
      if (peak <= 0) peak = profile.ceilings.gemm_flops(Precision::kFp32);
      if (peak > 0 && profile.ceilings.d2d)
        for (const auto& [kind, e] :
             fit_roofline_efficiency(run.layers, peak, profile.ceilings.d2d->bandwidth))
          profile.roofline_efficiency[kind] = e;
      replace_or_append(profile.runs, std::move(run), [](const ModelRun& a, const ModelRun& b) {
        return a.model == b.model && a.batch == b.batch && a.precision == b.precision;
      });
    }
  }

  std::unique_ptr<Communicator> comm;
  if (!o.no_collectives) {
    try {
      comm = std::make_unique<Communicator>(gpus, static_cast<size_t>(*max_bytes.value));
    } catch (const kernels::GpuError& e) {
      if (!device_healthy()) throw;
      std::printf("NCCL collectives skipped: %s\n", e.what());
      profile.notes.push_back(std::string("NCCL collectives not measured: ") + e.what());
    }
  }
  if (comm) {
    if (gpus == 1) {
      const char* note =
          "1 GPU: inter-GPU collective numbers need more GPUs; the sweeps record single-device "
          "figures (a one-rank NCCL communicator), which the simulator never uses as "
          "all-reduce costs";
      std::printf("%s\n", note);
      replace_or_append(profile.notes, std::string(note),
                        [](const std::string& a, const std::string& b) { return a == b; });
    }
    SweepOptions sweep;
    sweep.max_bytes = static_cast<size_t>(*max_bytes.value);
    sweep.warmup = o.warmup;
    sweep.repeats = o.repeats;
    for (CollectiveOp op : {CollectiveOp::kAllReduce, CollectiveOp::kAllGather,
                            CollectiveOp::kReduceScatter, CollectiveOp::kBroadcast}) {
      CollectiveSweep s = sweep_collective(*comm, op, sweep, stdout);
      if (s.samples.size() < 2) continue;
      replace_or_append(profile.collectives, std::move(s),
                        [](const CollectiveSweep& a, const CollectiveSweep& b) {
                          return a.op == b.op && a.algorithm == b.algorithm && a.source == b.source;
                        });
    }
  }

  std::printf("== overlap interference\n");
  const int64_t gemm_size = *precision == Precision::kFp32 ? 4096 : 8192;
  profile.overlap = measure_overlap(blas, *precision, gemm_size, comm.get(), timing);
  std::printf("  GEMM %lld^3 %s alone %.3f ms", static_cast<long long>(gemm_size),
              precision_name(*precision), profile.overlap->gemm_alone.median * 1e3);
  if (profile.overlap->gemm_with_copy)
    std::printf(", with a D2D copy %.3f ms", profile.overlap->gemm_with_copy->median * 1e3);
  if (profile.overlap->gemm_with_allreduce)
    std::printf(", with an all-reduce %.3f ms", profile.overlap->gemm_with_allreduce->median * 1e3);
  std::printf(": slowdown %.3f\n", profile.overlap->slowdown());

  comm.reset();
  write_profile(profile, o.output);
  DDPSIM_CUDA_CHECK(cudaStreamDestroy(stream));
  std::printf("wrote %s\n", o.output.c_str());
  return kExitOk;
}

}  // namespace
}  // namespace ddpsim::calibrate

int main(int argc, char** argv) {
  ddpsim::calibrate::Options o;
  CLI::App app{
      "ddpsim-calibrate: time this machine's kernels, copies and NCCL collectives into "
      "a ddpsim calibration profile"};
  app.add_option("--model", o.model, "Zoo model whose layers are timed (see `ddpsim models`)");
  app.add_option("--batch", o.batches, "Per-GPU batch size (repeatable; default 32)")
      ->check(CLI::PositiveNumber);
  app.add_option("--precision", o.precision, "fp32 (default), tf32, fp16, bf16");
  app.add_option("--seq", o.sequence_length, "Sequence length (transformers; 0 = default)")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--repeats", o.repeats, "Timed repeats per measurement")
      ->check(CLI::PositiveNumber);
  app.add_option("--warmup", o.warmup, "Untimed warm-up runs")->check(CLI::NonNegativeNumber);
  app.add_option("--device", o.device, "CUDA device for kernels")->check(CLI::NonNegativeNumber);
  app.add_option("--max-bytes", o.max_bytes, "Largest collective size (default 1GiB)");
  app.add_flag("--no-collectives", o.no_collectives, "Skip the NCCL sweeps");
  app.add_flag("--no-layers", o.no_layers, "Only ceilings, collectives and overlap");
  app.add_option("-o,--output", o.output, "Profile YAML (an existing one is updated)")->required();
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? 0 : ddpsim::kExitBadInput;
  }
  try {
    return ddpsim::calibrate::run(o);
  } catch (const ddpsim::InputError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return ddpsim::kExitBadInput;
  } catch (const ddpsim::kernels::GpuError& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return ddpsim::kExitFailure;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "internal error: %s\n", e.what());
    return ddpsim::kExitFailure;
  }
}
