// The memory check against hand counts. Parameter-derived terms are counted by hand from the
// reference architectures; the activations are the zoo's saved elements per sample (the
// layer-by-layer count model_zoo_test checks) times the dtype and the micro-batch.
#include "sim/cost/memory_fit.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "sim/engine/simulation.h"
#include "sim/model/model_zoo.h"
#include "sim/input/scenario_loader.h"

namespace ddpsim {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

// ResNet-50 (torchvision): 25,557,032 parameters. Its 53 BatchNorm layers have 26,560 channels
// (64 + layer1 3x(64+64+256)+256 + layer2 4x(128+128+512)+512 + layer3 6x(256+256+1024)+1024 +
// layer4 3x(512+512+2048)+2048), i.e. 53,120 weights and biases; conv + fc hold the other
// 25,503,912, which autocast casts to fp16.
constexpr double kResNet50 = 25557032;
constexpr double kResNet50Cast = 25557032 - 53120;

// BERT-large (HF BertModel with pooler): embeddings 30522x1024 + 512x1024 + 2x1024 + LN 2048 =
// 31,782,912; per layer 4x(1024x1024+1024) + (1024x4096+4096) + (4096x1024+1024) + 2 LN x 2048
// = 12,596,224, x24 = 302,309,376; pooler 1024x1024+1024 = 1,049,600. Total 335,141,888.
// Linear weights and biases (cast by autocast): 24 x 12,592,128 + 1,049,600 = 303,260,672.
constexpr double kBertLarge = 335141888;
constexpr double kBertLargeCast = 303260672;

std::string yaml(const std::string& model, int gpus, int batch, const std::string& precision,
                 const std::string& optimizer) {
  return "cluster: {nodes: 1, gpus_per_node: " + std::to_string(gpus) +
         ", gpu: v100-sxm2-16gb, intra_node: {kind: nvswitch, bandwidth: 150GB/s}, pcie: 16GB/s, "
         "nic: {count: 1, bandwidth: 100Gbps}}\n"
         "model: {name: " +
         model +
         "}\n"
         "training: {batch_per_gpu: " +
         std::to_string(batch) + ", precision: " + precision + ", optimizer: " + optimizer + "}\n";
}

struct Case {
  Scenario scenario;
  Model model;
};

Case make(const std::string& model, int gpus, int batch, const std::string& precision,
          const std::string& optimizer, std::vector<std::string> overrides = {}) {
  Case c;
  c.scenario =
      parse_scenario_text(yaml(model, gpus, batch, precision, optimizer), "mem.yaml", overrides);
  std::string error;
  EXPECT_TRUE(build_model(c.scenario.model, &c.model, &error)) << error;
  return c;
}

void expect_report(const MemoryReport& m, double weights, double grads, double optimizer,
                   double workspace, double activations) {
  EXPECT_DOUBLE_EQ(m.weights, weights);
  EXPECT_DOUBLE_EQ(m.gradients, grads);
  EXPECT_DOUBLE_EQ(m.optimizer_state, optimizer);
  EXPECT_DOUBLE_EQ(m.workspace, workspace);
  EXPECT_DOUBLE_EQ(m.activations, activations);
  EXPECT_DOUBLE_EQ(m.total, weights + grads + optimizer + workspace + activations);
  EXPECT_DOUBLE_EQ(m.capacity, 16 * kGiB);
  EXPECT_EQ(m.fits, m.total <= m.capacity);
}

// fp32, 8 GPUs with DDP, batch 32. SGD: 4P weights + 4P grads + no state + (1 GiB reserve + 4P
// bucket buffers) + 4 B x activations x 32. Adam adds 8P (exp_avg, exp_avg_sq).
TEST(MemoryFit, ResNet50Fp32SgdAndAdamMatchTheHandCount) {
  for (const char* opt : {"sgd", "adam"}) {
    const Case c = make("resnet50", 8, 32, "fp32", opt);
    ASSERT_EQ(c.model.params(), 25557032);
    const double state = std::string(opt) == "adam" ? 8 * kResNet50 : 0;
    expect_report(memory_report(c.scenario, c.model), 4 * kResNet50, 4 * kResNet50, state,
                  kGiB + 4 * kResNet50, 4.0 * c.model.activation_elems() * 32);
  }
}

// Mixed precision (AMP): fp32 parameters plus autocast's fp16 copies of conv/fc weights (2 B
// each), fp32 grads and state, 2-byte activations. Momentum: 4P of state.
TEST(MemoryFit, ResNet50MixedPrecisionKeepsFp32ParamsPlusHalfCopiesOfConvWeights) {
  const Case c = make("resnet50", 8, 256, "fp16", "momentum");
  expect_report(memory_report(c.scenario, c.model), 4 * kResNet50 + 2 * kResNet50Cast,
                4 * kResNet50, 4 * kResNet50, kGiB + 4 * kResNet50,
                2.0 * c.model.activation_elems() * 256);
}

// fp8 (Transformer Engine) holds memory as bf16 mixed precision does: the same report.
TEST(MemoryFit, Fp8CountsMemoryAsBf16MixedPrecision) {
  const std::vector<std::string> h100 = {"cluster.gpu=h100-sxm-80gb"};
  const Case bf16 = make("bert-large", 8, 8, "bf16", "adam", h100);
  const Case fp8 = make("bert-large", 8, 8, "fp8", "adam", h100);
  const MemoryReport a = memory_report(bf16.scenario, bf16.model);
  const MemoryReport b = memory_report(fp8.scenario, fp8.model);
  EXPECT_DOUBLE_EQ(b.weights, 4 * kBertLarge + 2 * kBertLargeCast);
  EXPECT_DOUBLE_EQ(b.weights, a.weights);
  EXPECT_DOUBLE_EQ(b.activations, a.activations);
  EXPECT_DOUBLE_EQ(b.total, a.total);
}

// BERT-large, sequence 128, batch 8, 8 GPUs. SGD: 4P + 4P + 0 + (1 GiB + 4P) + activations;
// Adam: + 8P = 2,681,135,104 B of state.
TEST(MemoryFit, BertLargeSgdAndAdamMatchTheHandCount) {
  for (const char* opt : {"sgd", "adam"}) {
    const Case c = make("bert-large", 8, 8, "fp32", opt, {"model.sequence_length=128"});
    ASSERT_EQ(c.model.params(), 335141888);
    const double state = std::string(opt) == "adam" ? 8 * kBertLarge : 0;
    expect_report(memory_report(c.scenario, c.model), 4 * kBertLarge, 4 * kBertLarge, state,
                  kGiB + 4 * kBertLarge, 4.0 * c.model.activation_elems() * 8);
  }
  const Case amp = make("bert-large", 8, 8, "fp16", "adam", {"model.sequence_length=128"});
  EXPECT_DOUBLE_EQ(memory_report(amp.scenario, amp.model).weights,
                   4 * kBertLarge + 2 * kBertLargeCast);
}

TEST(MemoryFit, OneGpuAndParameterServersHaveNoBucketBuffers) {
  const Case one = make("resnet50", 1, 32, "fp32", "sgd");
  EXPECT_DOUBLE_EQ(memory_report(one.scenario, one.model).workspace, kGiB);
  const Case ps = make("resnet50", 8, 32, "fp32", "sgd", {"sync.strategy=ps"});
  EXPECT_DOUBLE_EQ(memory_report(ps.scenario, ps.model).workspace, kGiB);
}

// Real data keeps (prefetch + 3 stages + the batch in use) input batches on the GPU.
TEST(MemoryFit, RealDataAddsTheLoadersInputBatches) {
  const Case c = make("resnet50", 8, 32, "fp32", "sgd",
                      {"data={sample_bytes: 110KB, decoded_bytes: 150528B, storage: {kind: local, "
                       "bandwidth: 2GB/s}, decode: {kind: cpu, samples_per_core: 200}, "
                       "prefetch: 2}"});
  EXPECT_DOUBLE_EQ(memory_report(c.scenario, c.model).workspace,
                   kGiB + 4 * kResNet50 + (2 + 3 + 1) * 32 * 150528.0);
}

// BERT-large, sequence 512, Adam, fp32, batch 32 does not fit 16 GiB. The largest batch is
// floor((16 GiB - 20P - 1 GiB) / (4 B x activations per sample)); it fits, one more does not.
TEST(MemoryFit, ReportsByHowMuchItDoesNotFitAndTheLargestBatchThatFits) {
  const Case c = make("bert-large", 8, 32, "fp32", "adam", {"model.sequence_length=512"});
  const MemoryReport m = memory_report(c.scenario, c.model);
  ASSERT_FALSE(m.fits);
  const double per_sample = 4.0 * c.model.activation_elems();
  const double fixed = 20 * kBertLarge + kGiB;
  EXPECT_DOUBLE_EQ(m.total - m.capacity, fixed + 32 * per_sample - 16 * kGiB);
  const int largest = static_cast<int>(std::floor((16 * kGiB - fixed) / per_sample));
  EXPECT_EQ(m.max_batch_that_fits, largest);
  ASSERT_GT(largest, 0);
  for (int batch : {largest, largest + 1}) {
    Case b = c;
    b.scenario.training.batch_per_gpu = batch;
    EXPECT_EQ(memory_report(b.scenario, b.model).fits, batch == largest) << batch;
  }
}

TEST(MemoryFit, NothingFitsWhenTheStateAloneExceedsTheGpu) {
  // GPT-2 XL (1.56 B params) with Adam in fp32: 20 B/param = 31 GB before any activation.
  const Case c = make("gpt2-xl", 8, 1, "fp32", "adam");
  const MemoryReport m = memory_report(c.scenario, c.model);
  EXPECT_FALSE(m.fits);
  EXPECT_EQ(m.max_batch_that_fits, 0);
}

TEST(MemoryFit, TheSimulationLabelsAScenarioThatDoesNotFitMemoryInfeasible) {
  const Case c = make("bert-large", 1, 32, "fp32", "adam",
                      {"model.sequence_length=512", "training.iterations=2"});
  SimOptions options;
  options.baseline = false;
  options.trace = TraceGpus::none();
  const SimulationResult r = simulate(c.scenario, options);
  EXPECT_FALSE(r.memory.fits);
  EXPECT_EQ(r.bottleneck, "memory-infeasible");
  EXPECT_GT(r.memory.total, r.memory.capacity);
}

}  // namespace
}  // namespace ddpsim
