// sync.gradient_dtype: stated, or what PyTorch reduces in (DDP: the parameters' fp32, AMP too;
// FSDP under mixed precision: MixedPrecision's reduce_dtype default, param_dtype = the compute
// dtype). Bytes on the wire halve with a 2-byte dtype; the DDP bucket buffers and ZeRO's reduce
// bucket in the memory report follow it.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/cost/iteration_plan.h"
#include "sim/cost/memory_fit.h"
#include "sim/input/scenario_loader.h"
#include "sim/model/model_zoo.h"
#include "sim/scenario/scenario_json.h"
#include "sim/text/input_error.h"

namespace ddpsim {
namespace {

const char* kGpt2 = R"(cluster:
  nodes: 1
  gpus_per_node: 8
  gpu: a100-sxm-80gb
  intra_node: {kind: nvswitch, bandwidth: 300GB/s, latency: 1us}
  pcie: 32GB/s
model: {name: gpt2}
training: {batch_per_gpu: 4, precision: bf16, optimizer: adam}
)";

Scenario parse(const std::vector<std::string>& overrides) {
  return parse_scenario_text(kGpt2, "gradients.yaml", overrides);
}

Model built(const Scenario& s) {
  Model m;
  std::string error;
  EXPECT_TRUE(build_model(s.model, &m, &error)) << error;
  return m;
}

TEST(GradientDtype, DefaultsFollowWhatPyTorchReducesIn) {
  EXPECT_EQ(parse({}).sync.gradient_bytes, 4);                       // DDP under AMP: fp32 .grad
  EXPECT_EQ(parse({"sync.sharding=zero3"}).sync.gradient_bytes, 2);  // FSDP reduce_dtype
  EXPECT_EQ(parse({"sync.sharding=fsdp-hybrid"}).sync.gradient_bytes, 2);
  EXPECT_EQ(parse({"sync.sharding=zero2"}).sync.gradient_bytes, 4);
  EXPECT_EQ(parse({"sync.sharding=zero3", "training.precision=fp32"}).sync.gradient_bytes, 4);
  EXPECT_EQ(parse({"sync.sharding=zero3", "sync.gradient_dtype=fp32"}).sync.gradient_bytes, 4);
  EXPECT_EQ(parse({"sync.gradient_dtype=bf16"}).sync.gradient_bytes, 2);
  EXPECT_EQ(scenario_to_json(parse({"sync.sharding=zero3"}))["sync"]["gradient_bytes"], 2);
}

TEST(GradientDtype, BytesOnTheWireHalveWithBf16) {
  const Scenario fp32 = parse({});
  const Scenario bf16 = parse({"sync.gradient_dtype=bf16"});
  const Model m = built(fp32);
  const double params = static_cast<double>(m.params());
  const IterationPlan a = build_iteration_plan(fp32, m), b = build_iteration_plan(bf16, m);
  EXPECT_DOUBLE_EQ(a.gradient_bytes, 4 * params);
  EXPECT_DOUBLE_EQ(b.gradient_bytes, 2 * params);
  // ZeRO-2's reduce bucket (the whole gradient under a 1 GiB cap) halves too.
  const std::vector<std::string> zero2 = {"sync.sharding=zero2", "sync.bucket_cap=1GiB"};
  std::vector<std::string> zero2_bf16 = zero2;
  zero2_bf16.push_back("sync.gradient_dtype=bf16");
  EXPECT_DOUBLE_EQ(memory_report(parse(zero2), m).in_flight, 4 * params);
  EXPECT_DOUBLE_EQ(memory_report(parse(zero2_bf16), m).in_flight, 2 * params);
}

TEST(GradientDtype, AnUnknownDtypeNamesTheAllowedOnes) {
  try {
    parse({"sync.gradient_dtype=fp8"});
    ADD_FAILURE() << "accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "<--set sync.gradient_dtype>: sync.gradient_dtype: unknown value 'fp8'; "
                 "allowed: fp32, fp16, bf16");
  }
}

}  // namespace
}  // namespace ddpsim
