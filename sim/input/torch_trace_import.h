// Imports a torch.profiler Chrome trace (prof.export_chrome_trace) into a calibration profile:
// per-layer forward and backward times, the optimizer update, and collective calls.
//
// Both trace forms are read: Kineto's ({"traceEvents": [...]}, PyTorch >= 1.8 built with
// Kineto, CPU ops and CUDA kernels) and the legacy profiler's plain list of CPU events (PyTorch
// builds without Kineto, such as Debian's 1.13). Layers come from, in this order:
// - the marks of calibrate/pytorch/annotate.py (`ddpsim:fwd:<layer>` when a layer's forward
//   ends, `ddpsim:bwd:<layer>` when its backward starts, `ddpsim:step` around each step), which
//   carry the exporter's layer names: a layer's forward runs from the previous mark to its own,
//   its backward from its mark to the next; the loss is what lies between the last forward mark
//   and the first backward mark (split where autograd's first backward function starts);
// - otherwise Kineto's module events (`nn.Module: Conv2d_0`, recorded with with_stack=True):
//   every leaf module is a layer named by its module path, its forward the module's range and
//   its backward the autograd functions whose sequence numbers its forward ops carry.
// Times are CPU wall time when the trace has no GPU kernels; with kernels, each interval's time
// is the GPU time of the kernels launched in it (the GPU timeline tiled at the marks). Steps are
// the `ddpsim:step` ranges, else `ProfilerStep#N`, else the whole trace; each layer's time is
// the median over the steps, all scaled by one factor so that they add up to the median of the
// steps' layer time (as the exporter's --time does). The optimizer is `Optimizer.step#...` plus
// `Optimizer.zero_grad#...`. Collectives are `record_param_comms` (with their sizes),
// `nccl:*`/`gloo:*` calls and NCCL kernels; sizes come from the event's arguments where the
// trace has them. A malformed trace is an InputError at the offending event's line and column.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/measurements/calibration_profile.h"
#include "sim/model/layer.h"

namespace ddpsim {

struct TorchTraceOptions {
  std::string model;  // the run's model name (the model file's name when one is given)
  int batch = 0;      // samples per step in the trace (required)
  Precision precision = Precision::kFp32;
  const Model* model_file = nullptr;   // layer kinds and FLOPs, parameter count, layer order
  std::optional<Optimizer> optimizer;  // default: from the optimizer's class in the trace
  int warmup_steps = -1;               // steps left out; -1: the first when there are >= 3
};

struct TraceCollective {
  std::string name;  // "allreduce", "all_gather", ... as the trace says
  int calls = 0;
  int calls_with_size = 0;
  double seconds = 0;  // all calls
};

struct TorchTraceImport {
  ModelRun run;
  std::vector<CollectiveSweep> collectives;  // fitted where at least 3 sizes were seen
  std::vector<std::string> notes;
  std::string layers_from;  // "ddpsim marks" or "nn.Module events"
  bool gpu = false;         // times are GPU kernel times
  std::string device;       // Kineto's deviceProperties name ("NVIDIA H200"), "" if absent
  int steps = 0;            // steps used
  double step_time = 0;     // median of the used steps, seconds
  double forward = 0;       // sums over the layers of their medians, seconds
  double backward = 0;
  double optimizer = 0;  // median per step
  std::vector<TraceCollective> collective_calls;
};

TorchTraceImport import_torch_trace(const std::string& path, const TorchTraceOptions& options);
// `path` names the text in messages.
TorchTraceImport parse_torch_trace(const std::string& text, const std::string& path,
                                   const TorchTraceOptions& options);

// What was imported, for the command's output.
std::string format_torch_trace_summary(const TorchTraceImport& imported);

}  // namespace ddpsim
