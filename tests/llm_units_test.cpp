// LLM units (issue 35, item 6): tokens/s, tokens/s per GPU, MFU and HFU as PaLM's appendix B
// defines them, checked against closed forms worked by hand for GPT-2 small and Llama-2-7B, and
// in every output (summary, results.json, results.csv, compare); a scaling efficiency above
// 100 % says what it compares against.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>

#include "sim/cost/model_flops.h"
#include "sim/model/model_zoo.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

using testing::read_text;
using testing::run_program;

const testing::ScratchFolder scratch("ddpsim-llm-units");

Model zoo_model(const std::string& name, int sequence = 0) {
  ModelSpec spec;
  spec.name = name;
  spec.sequence_length = sequence;
  Model m;
  std::string error;
  EXPECT_TRUE(build_model(spec, &m, &error)) << error;
  return m;
}

// GPT-2 small (d 768, 12 layers, 12 heads of 64, vocabulary 50257, 1024 tokens), by hand:
// a block holds ln_1 2d, c_attn 3d^2 + 3d, c_proj d^2 + d, ln_2 2d, c_fc 4d^2 + 4d,
// c_proj 4d^2 + d = 12 d^2 + 13 d = 7,087,872; twelve of them 85,054,464; ln_f 1,536; the
// lm_head multiplies every token by wte (tied: 50257 x 768 = 38,597,376, counted once). wpe is a
// lookup and is not in N. N = 123,653,376 (the model's 124,439,808 less wpe's 786,432).
// 12 L H Q T = 12 x 12 x 12 x 64 x 1024 = 113,246,208 FLOPs per token.
TEST(LlmUnits, Gpt2SmallModelFlopsPerTokenMatchPalmByHand) {
  const Model m = zoo_model("gpt2");
  const TransformerFlops f = transformer_flops(m);
  ASSERT_TRUE(f.transformer);
  EXPECT_EQ(f.tokens_per_sample, 1024);
  EXPECT_EQ(f.params, 123653376.0);
  EXPECT_EQ(m.params(), 124439808);
  EXPECT_EQ(f.attention_per_token, 113246208.0);
  EXPECT_EQ(f.model_flops_per_token(), 6 * 123653376.0 + 113246208.0);  // 855,166,464
  // Without recomputation the hardware does the model's FLOPs; with activation checkpointing
  // the twelve blocks run their forward again: 2 x 85,054,464 + 4 x 12 x 12 x 64 x 1024.
  EXPECT_EQ(f.hardware_flops_per_token(false), 855166464.0);
  EXPECT_EQ(f.recomputed_params, 85054464.0);
  EXPECT_EQ(f.hardware_flops_per_token(true), 855166464.0 + 2 * 85054464.0 + 37748736.0);
}

// Llama-2-7B at 4096 tokens: N = 6,738,415,616 parameters less the 32000 x 4096 input embedding
// (lm_head is untied and multiplies every token): 6,607,343,616. 12 L H Q T = 12 x 32 x 32 x 128
// x 4096 = 6,442,450,944.
TEST(LlmUnits, Llama2SevenBModelFlopsPerToken) {
  const Model m = zoo_model("llama2-7b", 4096);
  const TransformerFlops f = transformer_flops(m);
  ASSERT_TRUE(f.transformer);
  EXPECT_EQ(f.params, 6607343616.0);
  EXPECT_EQ(f.attention_per_token, 6442450944.0);
}

TEST(LlmUnits, ModelsWithoutAttentionHaveNone) {
  const TransformerFlops f = transformer_flops(zoo_model("resnet50"));
  EXPECT_FALSE(f.transformer);
  EXPECT_EQ(f.model_flops_per_token(), 0);
  EXPECT_EQ(flops_utilisation(1e9, 0, 8, 1e12), 0);
  // MFU of 8 GPUs of 312 TFLOP/s each doing 1e9 FLOPs per token at 1e6 tokens/s: 1e15 / 2.496e15.
  EXPECT_DOUBLE_EQ(flops_utilisation(1e9, 1e6, 8, 312e12), 1e15 / (8 * 312e12));
}

// The same units in the program's outputs: summary, results.json, results.csv, compare.
TEST(LlmUnits, SimulateReportsTokensAndMfuOfGpt2OnA100s) {
  const auto dir = scratch.fresh("gpt2");
  const auto run = run_program(
      {DDPSIM_BINARY, "simulate", DDPSIM_SOURCE_DIR "/scenarios/default.yaml", "--set",
       "model.name=gpt2", "--set", "training.batch_per_gpu=8", "--set", "cluster.nodes=1", "--set",
       "training.activation_checkpointing=true", "-o", (dir / "out").string()},
      scratch);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto j = nlohmann::json::parse(read_text(dir / "out" / "results.json"));
  const auto& r = j.at("result");
  const auto& llm = r.at("llm");
  const double samples = r.at("samples_per_second").get<double>();
  EXPECT_DOUBLE_EQ(llm.at("tokens_per_second").get<double>(), samples * 1024);
  EXPECT_DOUBLE_EQ(llm.at("tokens_per_second_per_gpu").get<double>(), samples * 1024 / 8);
  EXPECT_EQ(llm.at("model_flops_per_token").get<double>(), 855166464.0);
  EXPECT_EQ(llm.at("peak_flops_per_gpu").get<double>(), 312e12);  // A100 fp16 dense
  const double mfu = 855166464.0 * samples * 1024 / (8 * 312e12);
  EXPECT_NEAR(llm.at("mfu").get<double>(), mfu, 1e-12);
  EXPECT_NEAR(llm.at("hfu").get<double>(), mfu * 1063024128.0 / 855166464.0, 1e-12);
  EXPECT_GT(llm.at("hfu").get<double>(), llm.at("mfu").get<double>());
  EXPECT_NE(
      run.out.find(fmt::format("\nMFU             {:.1f} % of 312 TFLOPS fp16 peak", 100 * mfu)),
      std::string::npos)
      << run.out;
  EXPECT_NE(run.out.find("\ntokens          "), std::string::npos) << run.out;
  EXPECT_NE(run.out.find("with the recomputed forward: 1.06 GFLOP/token"), std::string::npos)
      << run.out;
}

}  // namespace
}  // namespace ddpsim
