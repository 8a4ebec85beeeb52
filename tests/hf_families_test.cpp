// Hugging Face configs of the dense families users train today (Qwen2/2.5, Gemma, Gemma 2,
// Phi-3) through the real binary: exact parameter counts against the published totals (the
// configs in tests/data/hf-configs/, sources in its README; the arithmetic in
// docs/model-import.md), the tensors each family adds or fuses, and mixture-of-experts configs
// refused with exit 2 at the key that says so.
#include <gtest/gtest.h>

#include <cstdint>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tests/test_process.h"

namespace {

namespace fs = std::filesystem;
using ddpsim::testing::Exited;
using ddpsim::testing::read_text;
using nlohmann::json;

const ddpsim::testing::ScratchFolder kScratch("ddpsim-hf-families-test");
const std::string kSource = DDPSIM_SOURCE_DIR;
const std::string kConfigs = kSource + "/tests/data/hf-configs/";

Exited ddpsim(std::vector<std::string> args) {
  args.insert(args.begin(), DDPSIM_BINARY);
  return ddpsim::testing::run_program(args, kScratch);
}

json model_json(const std::string& folder, std::vector<std::string> extra = {}) {
  std::vector<std::string> args = {"models", kConfigs + folder + "/config.json", "--json"};
  args.insert(args.end(), extra.begin(), extra.end());
  const Exited run = ddpsim(args);
  EXPECT_EQ(run.exit_code, 0) << folder << ": " << run.err;
  return run.exit_code == 0 ? json::parse(run.out) : json();
}

// Published totals; each is also the config's arithmetic (docs/model-import.md).
TEST(HfFamilies, ExactParameterCounts) {
  struct Case {
    const char* folder;
    int64_t parameters;
  };
  const Case cases[] = {
      {"Qwen2.5-7B", 7615616512},              // model card: 7.61B
      {"Qwen2.5-0.5B", 494032768},             // model card: 0.49B, tied embeddings
      {"gemma-2b", 2506172416},                // keras-hub gemma_2b_en
      {"gemma-2-9b", 9241705984},              // keras-hub gemma2_9b_en
      {"Phi-3-mini-4k-instruct", 3821079552},  // keras-hub phi3_mini_4k_instruct_en
  };
  for (const Case& c : cases) {
    const json m = model_json(c.folder);
    EXPECT_EQ(m.value("parameters", int64_t{0}), c.parameters) << c.folder;
    EXPECT_EQ(m.value("name", ""), c.folder);
  }
}

TEST(HfFamilies, ArithmeticOfEachFamily) {
  // Qwen2.5-7B by hand: embeddings and an untied head, q/k/v with biases, o without.
  const int64_t d = 3584, kv = 512, i = 18944, v = 152064, layers = 28;
  const int64_t layer = (d * d + d) + 2 * (d * kv + kv) + d * d + 3 * d * i + 2 * d;
  EXPECT_EQ(model_json("Qwen2.5-7B").value("parameters", int64_t{0}),
            2 * v * d + layers * layer + d);
  // Tied: the 0.5B model's lm_head adds no tensor; Gemma ties by default (no key in its config).
  EXPECT_EQ(model_json("Qwen2.5-0.5B").value("parameters", int64_t{0}) -
                model_json("Qwen2.5-0.5B").value("trainable_parameters", int64_t{0}),
            0);
  // Gemma 2 has four RMSNorms per layer, Gemma two: 42 x 2 x 3584 more than the same shapes
  // with two would have. Phi-3 has 3 tensors fewer per layer than Llama's 9 (fused q/k/v and
  // gate/up): 32 x 6 + embed + norm + head.
  EXPECT_EQ(model_json("Phi-3-mini-4k-instruct").value("parameter_tensors", 0), 32 * 6 + 3);
  EXPECT_EQ(model_json("gemma-2-9b").value("parameter_tensors", 0), 42 * 11 + 2);
  EXPECT_EQ(model_json("gemma-2b").value("parameter_tensors", 0), 18 * 9 + 2);
  EXPECT_EQ(model_json("Qwen2.5-7B").value("parameter_tensors", 0), 28 * 12 + 3);
}

TEST(HfFamilies, FusedProjectionsCostWhatSeparateOnesCost) {
  // Phi-3's qkv_proj and gate_up_proj are one matmul each: the same FLOPs as a Llama config of
  // the same shape (minus nothing), so a llama config with Phi-3's numbers and no window must
  // give the same forward FLOPs as Phi-3 without its window.
  std::string text = read_text(kConfigs + "Phi-3-mini-4k-instruct/config.json");
  const fs::path dir = kScratch.fresh("phi3-as-llama");
  auto write = [&](const std::string& name, const std::string& from, const std::string& to) {
    std::string t = text;
    t.replace(t.find("\"sliding_window\": 2047"), 22, "\"sliding_window\": null");
    if (!from.empty()) {
      t.replace(t.find(from), from.size(), to);
      t.replace(t.find("Phi3ForCausalLM\""), 16, "LlamaForCausalLM\"");
    }
    fs::create_directories(dir / name);
    std::ofstream(dir / name / "config.json") << t;
    return (dir / name / "config.json").string();
  };
  const std::string phi3 = write("phi3", "", "");
  const std::string llama = write("llama", "\"model_type\": \"phi3\"", "\"model_type\": \"llama\"");
  const Exited a = ddpsim({"models", phi3, "--json"});
  const Exited b = ddpsim({"models", llama, "--json"});
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  const json pa = json::parse(a.out), pb = json::parse(b.out);
  EXPECT_EQ(pa["parameters"], pb["parameters"]);
  EXPECT_DOUBLE_EQ(pa["fwd_flops_per_sample"].get<double>(),
                   pb["fwd_flops_per_sample"].get<double>());
  EXPECT_EQ(pb["parameter_tensors"].get<int>() - pa["parameter_tensors"].get<int>(), 32 * 3);
  // Its 2047-token window halves (about) the attention of a 4096-token sample: fewer FLOPs.
  EXPECT_LT(model_json("Phi-3-mini-4k-instruct")["fwd_flops_per_sample"].get<double>(),
            pa["fwd_flops_per_sample"].get<double>());
}

TEST(HfFamilies, SimulatesAsAModel) {
  const std::string s = (kScratch.fresh("gemma-sim") / "s.yaml").string();
  std::ofstream(s) << "name: gemma\n"
                      "cluster:\n  nodes: 2\n  gpus_per_node: 8\n  gpu: NVIDIA H100 80GB HBM3\n"
                      "  intra_node: {kind: nvswitch, bandwidth: 450GB/s, latency: 1us}\n"
                      "  pcie: 64GB/s\n  nic: {count: 8, bandwidth: 400Gbps, latency: 2us}\n"
                      "model: {hf_config: "
                   << kConfigs
                   << "gemma-2b/config.json, sequence_length: 2048}\n"
                      "training: {batch_per_gpu: 2, precision: bfloat16, optimizer: adamw, "
                      "iterations: 2, warmup: 1}\n";
  const Exited run = ddpsim({"simulate", s});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_NE(run.out.find("gemma-2b"), std::string::npos) << run.out;
}

TEST(HfFamilies, MixtureOfExpertsIsRefusedNamingWhy) {
  struct Case {
    const char* folder;
    const char* where;  // line:column of the key that says so
    const char* what;
  };
  const Case cases[] = {
      {"Mixtral-8x7B-v0.1", ":13:17: ", "model_type: 'mixtral' is a mixture-of-experts model"},
      {"Qwen1.5-MoE-A2.7B", ":14:17: ", "model_type: 'qwen2_moe' is a mixture-of-experts model"},
  };
  for (const Case& c : cases) {
    const std::string file = kConfigs + c.folder + "/config.json";
    const Exited run = ddpsim({"models", file});
    EXPECT_EQ(run.exit_code, 2) << c.folder;
    EXPECT_NE(run.err.find(file + c.where + c.what), std::string::npos) << run.err;
    EXPECT_NE(run.err.find("which ddpsim does not model yet"), std::string::npos) << run.err;
  }
  // A config of a dense type that still names experts.
  std::string text = read_text(kConfigs + "Qwen2.5-0.5B/config.json");
  text.replace(text.find("\"vocab_size\""), 0, "\"num_experts\": 8,\n  ");
  const fs::path dir = kScratch.fresh("dense-with-experts");
  std::ofstream(dir / "config.json") << text;
  const Exited run = ddpsim({"models", (dir / "config.json").string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("num_experts: a config with experts is a mixture-of-experts model"),
            std::string::npos)
      << run.err;
}

}  // namespace
