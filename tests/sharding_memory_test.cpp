// Sharded memory (ZeRO's formulas, to the byte), FSDP units and activation checkpointing.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/cost/iteration_plan.h"
#include "sim/cost/memory_fit.h"
#include "sim/cost/shard_units.h"
#include "sim/model/model_zoo.h"
#include "sim/input/scenario_loader.h"

namespace ddpsim {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;
constexpr double kLlama2_7b = 6'738'415'616;  // model_import_test: the published count

// Llama-2-7B, Adam, bf16 on 8 nodes x 8 H100s (64 GPUs), sequence 4096, micro-batch 1.
Scenario llama(const std::vector<std::string>& overrides = {}) {
  const std::string text =
      "cluster: {nodes: 8, gpus_per_node: 8, gpu: h100-sxm-80gb, intra_node: {kind: nvswitch, "
      "bandwidth: 450GB/s}, pcie: 64GB/s, nic: {count: 8, bandwidth: 400Gbps}}\n"
      "model: {name: llama2-7b, sequence_length: 4096}\n"
      "training: {batch_per_gpu: 1, precision: bf16, optimizer: adam}\n";
  return parse_scenario_text(text, "llama.yaml", overrides);
}

Model model_of(const Scenario& s) {
  Model m;
  std::string error;
  EXPECT_TRUE(build_model(s.model, &m, &error)) << error;
  return m;
}

TEST(ShardedMemory, Llama2_7bFollowsZeroFormulasToTheByte) {
  const double psi = kLlama2_7b;
  const double n = 64;
  struct Stage {
    const char* name;
    double weights, gradients, optimizer;  // ZeRO paper, section 3.1: 2, 2 and K = 12 bytes
  };
  const std::vector<Stage> stages = {
      {"none", 0, 0, 0},  // DDP: checked against the AMP accounting below
      {"zero1", 2 * psi, 2 * psi, 12 * psi / n},
      {"zero2", 2 * psi, 2 * psi / n, 12 * psi / n},
      {"zero3", 2 * psi / n, 2 * psi / n, 12 * psi / n},
      {"fsdp-hybrid", 2 * psi / 8, 2 * psi / 8, 12 * psi / 8},  // sharded over a node's 8 GPUs
  };
  for (const Stage& st : stages) {
    SCOPED_TRACE(st.name);
    const Scenario s = llama({std::string("sync.sharding=") + st.name});
    const Model m = model_of(s);
    ASSERT_EQ(m.params(), psi);
    const MemoryReport r = memory_report(s, m);
    if (std::string(st.name) == "none") {
      // PyTorch AMP: fp32 weights + their bf16 casts (every linear), fp32 gradients, Adam.
      EXPECT_EQ(r.weights, 4 * psi + 2 * static_cast<double>(autocast_cast_params(m)));
      EXPECT_EQ(r.gradients, 4 * psi);
      EXPECT_EQ(r.optimizer_state, 8 * psi);
    } else {
      EXPECT_EQ(r.weights, st.weights);
      EXPECT_EQ(r.gradients, st.gradients);
      EXPECT_EQ(r.optimizer_state, st.optimizer);
    }
    EXPECT_EQ(r.activations, m.activation_elems() * 2 * 1);
    EXPECT_EQ(r.total, r.weights + r.gradients + r.optimizer_state + r.workspace + r.activations);
  }
}

TEST(ShardedMemory, GatheredUnitsInFlight) {
  // Per-layer units of Llama-2-7B: the root (embedding, final norm, head) and 32 equal decoder
  // layers. limit_all_gathers holds the root and two layers; without it every unit may be.
  const Scenario s = llama({"sync.sharding=zero3"});
  const Model m = model_of(s);
  const std::vector<ShardUnit> units = shard_units(m, 0);
  ASSERT_EQ(units.size(), 33u);
  const double root = 2.0 * 32000 * 4096 + 4096;  // embed_tokens, lm_head, model.norm
  EXPECT_EQ(units[0].params, root);
  const double layer = (kLlama2_7b - root) / 32;
  EXPECT_EQ(units[1].params, layer);
  EXPECT_EQ(units[1].name, "model.layers.0");
  EXPECT_EQ(gathered_in_flight_params(s, m), root + 2 * layer);
  const MemoryReport r = memory_report(s, m);
  EXPECT_EQ(r.in_flight, (root + 2 * layer) * 2);
  EXPECT_EQ(r.workspace, 1 * kGiB + r.in_flight);

  const Scenario unlimited = llama({"sync.sharding=zero3", "sync.fsdp.limit_all_gathers=false"});
  EXPECT_EQ(gathered_in_flight_params(unlimited, m), kLlama2_7b);
  EXPECT_EQ(gathered_in_flight_params(llama({"sync.sharding=zero2"}), m), 0);
}

TEST(ShardedMemory, DoesNotFitWithoutShardingAndSaysWhatFits) {
  const Scenario s = llama();
  const Model m = model_of(s);
  const MemoryReport ddp = memory_report(s, m);
  EXPECT_FALSE(ddp.fits);
  // 16 bytes per parameter over 64 GPUs is 1.7 GB: ZeRO-3 fits batch 1 at 4096 tokens.
  const std::string advice = fits_with(s, m);
  EXPECT_NE(advice.find("sync.sharding: zero"), std::string::npos) << advice;
  const MemoryReport zero3 = memory_report(llama({"sync.sharding=zero3"}), m);
  EXPECT_TRUE(zero3.fits);
  EXPECT_GE(zero3.max_batch_that_fits, 1);
  // More sharding never needs more memory.
  double previous = ddp.total;
  for (const char* stage : {"zero1", "zero2", "zero3"}) {
    const double total = memory_report(llama({std::string("sync.sharding=") + stage}), m).total;
    EXPECT_LT(total, previous) << stage;
    previous = total;
  }
}

TEST(ActivationCheckpointing, KeepsEachBlockInputAndOneBlock) {
  const Scenario s = llama({"training.activation_checkpointing=true"});
  const Model m = model_of(s);
  const std::vector<ShardUnit> units = shard_units(m, 0);
  double kept = 0, largest = 0;
  for (const ShardUnit& u : units) {
    double elems = 0;
    for (int l : u.layers) elems += m.layers[l].activation_elems;
    if (u.root) {
      kept += elems;
    } else {
      // A decoder layer's input is its first layer's (input_layernorm): 4096 tokens x 4096.
      EXPECT_EQ(layer_input_elems(m.layers[u.layers.front()]), 4096.0 * 4096);
      kept += 4096.0 * 4096;
      largest = std::max(largest, elems);
    }
  }
  EXPECT_EQ(activation_elems_per_sample(m, true), kept + largest);
  EXPECT_LT(activation_elems_per_sample(m, true), 0.2 * m.activation_elems());
  EXPECT_EQ(memory_report(s, m).activations, (kept + largest) * 2);

  // Backward recomputes every decoder layer's forward; the root's layers are not recomputed.
  const IterationPlan plain = build_iteration_plan(llama(), m);
  const IterationPlan recompute = build_iteration_plan(s, m);
  double blocks_forward = 0;
  for (size_t u = 1; u < units.size(); ++u)
    for (int l : units[u].layers) blocks_forward += plain.compute.layers[l].forward;
  EXPECT_NEAR(recompute.compute.backward, plain.compute.backward + blocks_forward,
              1e-12 * plain.compute.backward);
  EXPECT_EQ(recompute.compute.forward, plain.compute.forward);
}

TEST(ShardUnits, BlocksByNameAndBySize) {
  EXPECT_EQ(block_of("model.layers.3.mlp.up_proj"), "model.layers.3");
  EXPECT_EQ(block_of("layer1.0.conv1"), "layer1.0");
  EXPECT_EQ(block_of("lm_head"), "");
  EXPECT_EQ(block_of("h.11.attn"), "h.11");

  const Scenario s = llama();
  const Model m = model_of(s);
  // size_based_auto_wrap_policy with 1e9 parameters: six units of >= 1e9 (about five decoder
  // layers each, cut inside a layer where the count is reached), the rest in the root.
  const std::vector<ShardUnit> big = shard_units(m, 1'000'000'000);
  int64_t total = 0;
  for (const ShardUnit& u : big) {
    total += u.params;
    if (!u.root) {
      EXPECT_GE(u.params, 1'000'000'000);
    }
  }
  EXPECT_EQ(total, static_cast<int64_t>(kLlama2_7b));
  EXPECT_EQ(big.size(), 7u);
  // Every layer is in exactly one unit.
  std::vector<int> seen(m.layers.size(), 0);
  for (const ShardUnit& u : big)
    for (int l : u.layers) ++seen[l];
  for (int c : seen) EXPECT_EQ(c, 1);
}

TEST(ShardedMemory, OptimizerStepRunsOnTheShard) {
  const Model m = model_of(llama());
  const double whole = build_iteration_plan(llama(), m).compute.optimizer;
  EXPECT_NEAR(build_iteration_plan(llama({"sync.sharding=zero3"}), m).compute.optimizer, whole / 64,
              1e-15);
  EXPECT_NEAR(build_iteration_plan(llama({"sync.sharding=fsdp-hybrid"}), m).compute.optimizer,
              whole / 8, 1e-15);
}

}  // namespace
}  // namespace ddpsim
