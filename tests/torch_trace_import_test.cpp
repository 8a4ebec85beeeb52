// The torch.profiler trace importer on traces whose answers are known: hand-made traces in
// Kineto's form (tests/data/torch-traces: a GPU run annotated by calibrate/pytorch/annotate.py
// with NCCL all-reduces, a CPU run with module events), the legacy profiler's plain list, and
// malformed traces located at their line and column; and a real PyTorch 2.x trace of a GPU run.
// The importer on a trace recorded in the test (PyTorch 1.13, CPU) is in pytorch_test.cpp.
#include "sim/input/torch_trace_import.h"

#include <gtest/gtest.h>

#include "sim/model/model_file.h"
#include "sim/text/input_error.h"

namespace ddpsim {
namespace {

const std::string kTraces = std::string(DDPSIM_SOURCE_DIR) + "/tests/data/torch-traces/";

const LayerTiming& timing(const TorchTraceImport& t, const std::string& name) {
  for (const LayerTiming& l : t.run.layers)
    if (l.name == name) return l;
  ADD_FAILURE() << "no layer " << name;
  static const LayerTiming missing;
  return missing;
}

TorchTraceOptions options(int batch = 8) {
  TorchTraceOptions o;
  o.model = "net";
  o.batch = batch;
  return o;
}

// Two steps of two layers; each interval's time is the GPU time of the kernels launched in it,
// the GPU timeline tiled at the marks (numbers in the fixture's comments, microseconds).
TEST(TorchTraceImport, GpuMarksTileTheKernelTimeline) {
  const TorchTraceImport t = import_torch_trace(kTraces + "kineto_gpu_marks.json", options());
  EXPECT_TRUE(t.gpu);
  EXPECT_EQ(t.layers_from, "ddpsim marks");
  EXPECT_EQ(t.steps, 2);
  ASSERT_EQ(t.run.layers.size(), 3u);  // a, b, loss (in the order they ran)
  EXPECT_EQ(t.run.layers[0].name, "a");
  EXPECT_EQ(t.run.layers[2].name, "loss");
  EXPECT_NEAR(timing(t, "a").fwd.median, 100e-6, 1e-12);  // kernel 1: 1100-1200
  EXPECT_NEAR(timing(t, "b").fwd.median, 60e-6, 1e-12);
  EXPECT_NEAR(timing(t, "loss").fwd.median, 10e-6, 1e-12);
  EXPECT_NEAR(timing(t, "loss").bwd.median, 20e-6, 1e-12);
  EXPECT_NEAR(timing(t, "b").bwd.median, 100e-6, 1e-12);
  EXPECT_NEAR(timing(t, "a").bwd.median, 110e-6, 1e-12);
  EXPECT_NEAR(t.optimizer, 30e-6, 1e-12);  // the kernel SGD's step launched
  EXPECT_EQ(t.run.batch, 8);
  EXPECT_EQ(t.run.model, "net");
}

// A trace as PyTorch 2.x writes it under the profiler on a GPU: the GPU idles between kernels
// while the host launches, Kineto repeats each step range on the GPU row, and an NCCL kernel runs
// beside backward. Layers are worth their kernels' busy time (not the idle gaps, not the NCCL
// kernel), there are two steps (not four), and a step is the sum of its layers.
TEST(TorchTraceImport, GpuTimeIsKernelBusyTimeNotTheProfilersGaps) {
  const TorchTraceImport t =
      import_torch_trace(kTraces + "kineto_gpu_profiler_gaps.json", options());
  EXPECT_TRUE(t.gpu);
  EXPECT_EQ(t.steps, 2);
  EXPECT_NEAR(timing(t, "a").fwd.median, 50e-6, 1e-12);
  EXPECT_NEAR(timing(t, "b").fwd.median, 30e-6, 1e-12);
  EXPECT_NEAR(timing(t, "loss").fwd.median, 10e-6, 1e-12);
  EXPECT_NEAR(timing(t, "b").bwd.median, 60e-6, 1e-12);
  EXPECT_NEAR(timing(t, "a").bwd.median, 40e-6, 1e-12);
  EXPECT_NEAR(t.optimizer, 5e-6, 1e-12);
  EXPECT_NEAR(t.step_time, 195e-6, 1e-12);
  EXPECT_EQ(t.device, "NVIDIA H200");  // deviceProperties, for the profile's device block
}

// A real Kineto trace (PyTorch 2.11, CUDA 13, one H200; ResNet-18 at batch 2, three steps,
// trimmed to the events the importer reads): every layer of the exported model file is found,
// the first step is left out, and layers + optimizer are the step's GPU busy time.
TEST(TorchTraceImport, ARealPyTorch2CudaTraceImportsEveryLayer) {
  const Model model = load_model_file(kTraces + "kineto_cuda_resnet18_h200.model.yaml");
  TorchTraceOptions o = options(2);
  o.model_file = &model;
  o.precision = Precision::kBf16;
  const TorchTraceImport t = import_torch_trace(kTraces + "kineto_cuda_resnet18_h200.json", o);
  EXPECT_TRUE(t.gpu);
  EXPECT_EQ(t.device, "NVIDIA H200");
  EXPECT_EQ(t.layers_from, "ddpsim marks");
  EXPECT_EQ(t.steps, 2);
  EXPECT_EQ(t.run.layers.size(), model.layers.size());
  for (const LayerTiming& l : t.run.layers) {
    EXPECT_GE(l.fwd.median, 0) << l.name;
    EXPECT_GE(l.bwd.median, 0) << l.name;
  }
  EXPECT_GT(t.forward, 0);
  EXPECT_GT(t.backward, t.forward);  // backward does twice the work of forward
  EXPECT_GT(t.optimizer, 0);
  EXPECT_NEAR((t.forward + t.backward + t.optimizer) / t.step_time, 1, 0.01);
}

// The three all-reduces take 10 us + 10 us per MiB: the fit recovers alpha and beta.
TEST(TorchTraceImport, NcclAllReducesWithTheirSizesAreFitted) {
  const TorchTraceImport t = import_torch_trace(kTraces + "kineto_gpu_marks.json", options());
  ASSERT_EQ(t.collectives.size(), 1u);
  const CollectiveSweep& s = t.collectives[0];
  EXPECT_EQ(s.op, CollectiveOp::kAllReduce);
  EXPECT_EQ(s.gpus, 8);
  ASSERT_EQ(s.samples.size(), 3u);
  EXPECT_DOUBLE_EQ(s.samples[0].bytes, 1 << 20);
  ASSERT_EQ(s.fit.size(), 1u);
  EXPECT_NEAR(s.fit[0].alpha, 10e-6, 1e-12);
  EXPECT_NEAR(s.fit[0].beta, 10e-6 / (1 << 20), 1e-18);
  ASSERT_EQ(t.collective_calls.size(), 1u);
  EXPECT_EQ(t.collective_calls[0].calls, 3);
  EXPECT_EQ(t.collective_calls[0].calls_with_size, 3);
}

// Kineto module events: leaf modules named by their path, backward by sequence number; the
// first of three steps is left out, the optimizer is step + zero_grad.
TEST(TorchTraceImport, ModuleEventsGiveLeafModulesAndTheirBackward) {
  const TorchTraceImport t = import_torch_trace(kTraces + "kineto_cpu_modules.json", options());
  EXPECT_FALSE(t.gpu);
  EXPECT_EQ(t.layers_from, "nn.Module events");
  EXPECT_EQ(t.steps, 2);
  ASSERT_EQ(t.run.layers.size(), 3u);
  EXPECT_EQ(t.run.layers[0].name, "Net_0/Linear_0");
  EXPECT_EQ(t.run.layers[0].kind, LayerKind::kLinear);
  EXPECT_EQ(t.run.layers[1].kind, LayerKind::kActivation);
  EXPECT_NEAR(timing(t, "Net_0/Linear_0").fwd.median, 100e-6, 1e-12);
  EXPECT_NEAR(timing(t, "Net_0/Linear_0").bwd.median, 120e-6, 1e-12);
  EXPECT_NEAR(timing(t, "Net_0/ReLU_0").bwd.median, 10e-6, 1e-12);
  EXPECT_NEAR(timing(t, "Net_0/Linear_1").fwd.median, 95e-6, 1e-12);  // 90 and 100 us
  EXPECT_NEAR(t.optimizer, 120e-6, 1e-12);
  EXPECT_NEAR(t.step_time, 900e-6, 1e-12);
  // Without a model file the parameter count is unknown: the optimizer is noted, not written.
  EXPECT_TRUE(t.run.optimizer.empty());
  ASSERT_FALSE(t.notes.empty());
  EXPECT_NE(t.notes[0].find("optimizer: 0.00012 s per step"), std::string::npos) << t.notes[0];
}

// The legacy profiler's plain list (PyTorch without Kineto), CPU wall time between the marks.
TEST(TorchTraceImport, LegacyListWithMarks) {
  const std::string text = R"([
{"name": "ddpsim:step", "ph": "X", "ts": 0, "dur": 1000, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "ddpsim:fwd:conv", "ph": "X", "ts": 100, "dur": 0, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "ddpsim:fwd:fc", "ph": "X", "ts": 250, "dur": 0, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "autograd::engine::evaluate_function: NllLossBackward0", "ph": "X", "ts": 300, "dur": 20, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "ddpsim:bwd:fc", "ph": "X", "ts": 320, "dur": 0, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "ddpsim:bwd:conv", "ph": "X", "ts": 500, "dur": 0, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "autograd::engine::evaluate_function: ConvolutionBackward0", "ph": "X", "ts": 500, "dur": 300, "tid": 1, "pid": "CPU functions", "args": {}},
{"name": "Optimizer.step#SGD.step", "ph": "X", "ts": 850, "dur": 100, "tid": 1, "pid": "CPU functions", "args": {}}
])";
  const TorchTraceImport t = parse_torch_trace(text, "t.json", options());
  EXPECT_FALSE(t.gpu);
  EXPECT_NEAR(timing(t, "conv").fwd.median, 100e-6, 1e-12);
  EXPECT_NEAR(timing(t, "fc").fwd.median, 150e-6, 1e-12);
  EXPECT_NEAR(timing(t, "loss").fwd.median, 50e-6, 1e-12);  // 250 to backward's start at 300
  EXPECT_NEAR(timing(t, "loss").bwd.median, 20e-6, 1e-12);
  EXPECT_NEAR(timing(t, "fc").bwd.median, 180e-6, 1e-12);
  EXPECT_NEAR(timing(t, "conv").bwd.median, 300e-6, 1e-12);
  EXPECT_NEAR(t.optimizer, 100e-6, 1e-12);
  EXPECT_NEAR(t.forward + t.backward + t.optimizer, 900e-6, 1e-12);
}

std::string error_of(const std::string& text) {
  try {
    parse_torch_trace(text, "t.json", options());
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

TEST(TorchTraceImport, MistakesAreLocated) {
  EXPECT_EQ(error_of("[\n {\"name\": \"a\", \"ph\": \"X\", \"ts\": 1, \"dur\": 2},\n "
                     "{\"name\": \"b\", \"ph\": \"X\", \"ts\": 1}\n]"),
            "t.json:3:2: event 1: missing \"dur\" (microseconds, a number)");
  EXPECT_EQ(error_of("{\"traceEvents\": [\n  {\"name\": \"a\", \"ph\": \"X\", \"ts\": 1, "
                     "\"dur\": -5}]}"),
            "t.json:2:3: event 0: \"dur\" must be between 0 and 1e12 microseconds, got -5");
  EXPECT_EQ(error_of("{\"events\": []}"),
            "t.json:1:1: expected a Chrome trace: a list of events, or an object with a "
            "\"traceEvents\" list (torch.profiler's export_chrome_trace)");
  EXPECT_EQ(error_of("[{\"name\": \"a\", \"ph\": \"X\", \"ts\": 1, \"dur\": 2},]").substr(0, 31),
            "t.json:1:46: not a JSON trace: ");
  EXPECT_EQ(error_of("[{\"name\": \"aten::mm\", \"ph\": \"X\", \"ts\": 1, \"dur\": 2}]"),
            "t.json: no layers in the trace: record it with annotate.py's TraceAnnotator "
            "(calibrate/pytorch, installed in share/ddpsim/pytorch; any PyTorch), or with "
            "torch.profiler's with_stack=True (Kineto module events); see "
            "docs/model-import.md");
}

}  // namespace
}  // namespace ddpsim
