// Models from outside the zoo's builders: Hugging Face config.json files (the published
// parameter counts of Llama-2, Llama-3, Mistral, GPT-2, BERT, ViT, and equality with the zoo's
// own GPT-2 and BERT), model files written by the PyTorch exporter (what they carry, their
// gradient order, and every mistake located), and the scenario keys that load them.
#include <gtest/gtest.h>

#include <fstream>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "sim/cost/bucketing.h"
#include "sim/cost/memory_fit.h"
#include "sim/input/scenario_loader.h"
#include "sim/model/hf_config.h"
#include "sim/model/model_file.h"
#include "sim/model/model_zoo.h"
#include "sim/text/inputs_read.h"
#include "sim/text/sha256.h"
#include "tests/test_process.h"

namespace ddpsim {
namespace {

const std::string kConfigs = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/models/hf/";
const testing::ScratchFolder kScratch("ddpsim-model-import-test");

Model hf(const std::string& folder, int sequence = 0) {
  Model m;
  std::string error;
  EXPECT_TRUE(
      build_hf_model(load_hf_config(kConfigs + folder + "/config.json"), sequence, &m, &error))
      << folder << ": " << error;
  return m;
}

Model zoo(const std::string& key, int sequence = 0,
          std::optional<Attention> attention = std::nullopt) {
  ModelSpec spec;
  spec.name = key;
  spec.sequence_length = sequence;
  spec.attention = attention;
  Model m;
  std::string error;
  EXPECT_TRUE(build_model(spec, &m, &error)) << error;
  return m;
}

const Layer& layer(const Model& m, const std::string& name) {
  for (const Layer& l : m.layers)
    if (l.name == name) return l;
  ADD_FAILURE() << m.name << " has no layer " << name;
  static const Layer missing;
  return missing;
}

// The message of the InputError `f` throws, with its location.
template <class F>
std::string error_of(F f) {
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "(no error)";
}

// ---------------------------------------------------------------- Hugging Face configs

// The configs added for the sharded-training validation sources
// (scenarios/validation/sharded-sources.md): MosaicML's MPT benchmark models are the GPT-2
// architecture, and their parameter counts equal the NumParams column of llm-foundry's
// scripts/train/benchmarking/README.md at SeqLen 2048; Llama-2-70B has 68,976,648,192.
TEST(HfConfig, ShardedValidationModelsHaveTheirPublishedParameterCounts) {
  EXPECT_EQ(hf("mpt-1b").params(), 1315950592);
  EXPECT_EQ(hf("mpt-7b").params(), 6658859008);
  EXPECT_EQ(hf("mpt-13b").params(), 12853954560);
  EXPECT_EQ(hf("mpt-30b").params(), 29975214080);
  EXPECT_EQ(hf("mpt-70b").params(), 64862437376);
  EXPECT_EQ(hf("llama-2-70b").params(), 68976648192);
}

TEST(HfConfig, PublishedParameterCounts) {
  EXPECT_EQ(hf("llama-2-7b").params(), 6'738'415'616);
  EXPECT_EQ(hf("llama-2-13b").params(), 13'015'864'320);
  EXPECT_EQ(hf("llama-3-8b").params(), 8'030'261'248);
  EXPECT_EQ(hf("mistral-7b-v0.1").params(), 7'241'732'096);
  EXPECT_EQ(hf("gpt2").params(), 124'439'808);
  EXPECT_EQ(hf("bert-base-uncased").params(), 109'514'298);  // BertForMaskedLM
  EXPECT_EQ(hf("vit-base-patch16-224").params(), 86'567'656);
}

// Llama-2 7B block by block: embeddings and an untied lm_head (V d each), per layer q, k, v, o
// (d x d each), gate, up, down (d x I each) and two RMSNorm weights, and the final norm.
TEST(HfConfig, Llama2SevenBIsItsClosedForm) {
  const int64_t v = 32000, d = 4096, i = 11008, layers = 32;
  const Model m = hf("llama-2-7b");
  EXPECT_EQ(m.params(), 2 * v * d + layers * (4 * d * d + 3 * d * i + 2 * d) + d);
  EXPECT_EQ(layer(m, "model.layers.0.self_attn.k_proj").params(), d * d);
  EXPECT_EQ(layer(m, "model.layers.31.mlp.down_proj").params(), i * d);
  EXPECT_EQ(layer(m, "model.layers.0.input_layernorm").param_tensors, (std::vector<int64_t>{d}));
  EXPECT_EQ(layer(m, "lm_head").params(), v * d);
  EXPECT_EQ(m.sequence_length, 4096);  // max_position_embeddings
}

TEST(HfConfig, ParameterNamesAreHuggingFacesAndUnique) {
  const Model m = hf("llama-3-8b");
  std::set<std::string> names;
  size_t tensors = 0;
  for (const Layer& l : m.layers) {
    ASSERT_EQ(l.param_names.size(), l.param_tensors.size()) << l.name;
    for (const std::string& n : l.param_names) EXPECT_TRUE(names.insert(n).second) << n;
    tensors += l.param_tensors.size();
  }
  EXPECT_EQ(tensors, 291u);  // 32 x 9 + embed_tokens, norm, lm_head
  EXPECT_TRUE(names.count("model.layers.7.self_attn.q_proj.weight"));
  EXPECT_TRUE(names.count("model.layers.7.post_attention_layernorm.weight"));
  EXPECT_TRUE(names.count("model.embed_tokens.weight"));
  EXPECT_TRUE(names.count("lm_head.weight"));
}

// Grouped-query attention: Llama-3 8B's 8 KV heads make k_proj and v_proj a quarter of q_proj;
// the attention computes the same products as with 32 KV heads, but reads less.
TEST(HfConfig, GroupedQueryAttentionShrinksKeysAndValuesNotAttentionFlops) {
  const Model gqa = hf("llama-3-8b", 2048);
  EXPECT_EQ(layer(gqa, "model.layers.0.self_attn.k_proj").params(), 4096 * 1024);
  EXPECT_EQ(layer(gqa, "model.layers.0.self_attn.q_proj").params(), 4096 * 4096);
  std::string text = testing::read_text(kConfigs + "llama-3-8b/config.json");
  text.replace(text.find("\"num_key_value_heads\": 8"), 24, "\"num_key_value_heads\": 32");
  Model mha;
  std::string error;
  ASSERT_TRUE(build_hf_model(parse_hf_config(text, "mha.json", "mha"), 2048, &mha, &error));
  const Layer& a = layer(gqa, "model.layers.0.self_attn.attention");
  const Layer& b = layer(mha, "model.layers.0.self_attn.attention");
  EXPECT_DOUBLE_EQ(a.fwd_flops, b.fwd_flops);
  // Fused attention reads Q, K, V and writes the output: 2 q d + 2 kv d_kv elements.
  EXPECT_DOUBLE_EQ(b.fwd_bytes, 4.0 * 2048 * 4096);
  EXPECT_DOUBLE_EQ(a.fwd_bytes, 2.0 * 2048 * 4096 + 2.0 * 2048 * 1024);
}

// Mistral's 4096-token sliding window: at 8192 tokens each query reads 4096 keys.
TEST(HfConfig, MistralSlidingWindowBoundsTheKeys) {
  const Model m = hf("mistral-7b-v0.1");
  EXPECT_EQ(m.sequence_length, 8192);  // 32768 positions, trained at 8192
  const Layer& core = layer(m, "model.layers.0.self_attn.attention");
  ASSERT_EQ(core.dims.size(), 5u);
  EXPECT_EQ(core.dims[0], 8192);  // queries
  EXPECT_EQ(core.dims[3], 4096);  // keys
  EXPECT_EQ(layer(hf("mistral-7b-v0.1", 2048), "model.layers.0.self_attn.attention").dims[3], 2048);
}

// The same architecture from a config and from the zoo's builder is the same model, at the same
// attention implementation: the config says none, so transformers' default, sdpa.
TEST(HfConfig, Gpt2AndBertConfigsAreTheZoosModels) {
  const Model a = hf("gpt2"), b = zoo("gpt2", 0, Attention::kSdpa);
  ASSERT_EQ(a.layers.size(), b.layers.size());
  for (size_t i = 0; i < a.layers.size(); ++i) {
    EXPECT_EQ(a.layers[i].name, b.layers[i].name);
    EXPECT_EQ(a.layers[i].param_tensors, b.layers[i].param_tensors);
    EXPECT_DOUBLE_EQ(a.layers[i].fwd_flops, b.layers[i].fwd_flops);
    EXPECT_DOUBLE_EQ(a.layers[i].activation_elems, b.layers[i].activation_elems);
  }
  std::string text = testing::read_text(kConfigs + "bert-base-uncased/config.json");
  text.replace(text.find("BertForMaskedLM"), 15, "BertModel");
  Model bert;
  std::string error;
  ASSERT_TRUE(build_hf_model(parse_hf_config(text, "bert.json", "bert"), 128, &bert, &error));
  EXPECT_EQ(bert.params(), zoo("bert-base").params());
  EXPECT_DOUBLE_EQ(bert.fwd_flops(), zoo("bert-base").fwd_flops());
  // The MLM head adds transform (d^2 + d + 2d) and the decoder's bias; its decoder weight is the
  // word embedding table.
  EXPECT_EQ(hf("bert-base-uncased").params() - bert.params(),
            -590'592 + (768 * 768 + 768 + 2 * 768) + 30'522);
}

TEST(HfConfig, ZooLlmsAreBuiltFromTheShippedConfigs) {
  const std::pair<const char*, const char*> keys[] = {{"llama2-7b", "llama-2-7b"},
                                                      {"llama2-13b", "llama-2-13b"},
                                                      {"llama3-8b", "llama-3-8b"},
                                                      {"mistral-7b", "mistral-7b-v0.1"}};
  for (const auto& [key, folder] : keys) {
    const Model a = zoo(key), b = hf(folder);
    EXPECT_EQ(a.params(), b.params()) << key;
    EXPECT_DOUBLE_EQ(a.fwd_flops(), b.fwd_flops()) << key;
    EXPECT_EQ(a.sequence_length, b.sequence_length) << key;
    EXPECT_EQ(a.layers.size(), b.layers.size()) << key;
  }
}

TEST(HfConfig, SequenceLengthBeyondThePositionTableIsRefused) {
  Model m;
  std::string error;
  EXPECT_FALSE(
      build_hf_model(load_hf_config(kConfigs + "llama-2-7b/config.json"), 8192, &m, &error));
  EXPECT_EQ(error,
            "model.sequence_length for 'llama-2-7b' must be at most 4096 (its "
            "max_position_embeddings), got 8192");
  EXPECT_FALSE(build_hf_model(load_hf_config(kConfigs + "vit-base-patch16-224/config.json"), 64, &m,
                              &error));
}

TEST(HfConfig, MistakesAreLocated) {
  EXPECT_EQ(error_of([] { parse_hf_config("{\n  \"model_type\": \"t5\"\n}\n", "c.json", "c"); }),
            "c.json:2:17: model_type: model type 't5' is not supported; supported: gpt2, bert, "
            "llama, mistral, qwen2, gemma, gemma2, phi3, vit (or export the model from PyTorch: "
            "docs/model-import.md)");
  EXPECT_EQ(error_of([] {
              parse_hf_config("{\"model_type\": \"llama\",\n \"architectures\": [\"LlamaModel\"]}",
                              "c.json", "c");
            }),
            "c.json:2:20: architectures[0]: architecture 'LlamaModel' of model type llama is not "
            "supported; supported: LlamaForCausalLM");
  EXPECT_EQ(error_of([] { parse_hf_config("{\"model_type\": \"gpt2\"}", "c.json", "c"); }),
            "c.json:1:1: missing required key 'n_embd' in config.json");
  EXPECT_EQ(
      error_of([] { parse_hf_config("{\"model_type\": \"gpt2\", \"n_embd\": 0}", "c.json", "c"); }),
      "c.json:1:34: n_embd: expected an integer in [1, 16777216], got 0");
  EXPECT_NE(error_of([] {
              parse_hf_config("{\"model_type\": \"gpt2\",,}", "c.json", "c");
            }).find("c.json:1:"),
            std::string::npos);
}

// ---------------------------------------------------------------- model files

const char* const kModelFile = R"(format: 1
name: "tiny"
sample_unit: "images"
parameters: 1142
gradient_order: ["bn.weight", "bn.bias", "fc.bias", "fc.weight"]
layers:
  - name: "conv"
    kind: "conv"
    params:
      - {name: "conv.weight", shape: [8, 3, 3, 3], dtype: "float32", trainable: false}
    fwd_flops: 1000
    io_elems: 300
    saved_elems: 100
    bwd_flops_factor: 2
  - name: "bn"
    kind: "batch_norm"
    params:
      - {name: "bn.weight", shape: [8], dtype: "float32"}
      - {name: "bn.bias", shape: [8], dtype: "float32"}
    fwd_flops: 64
    io_elems: 24
    saved_elems: 8
  - name: "fc"
    kind: "linear"
    params:
      - {name: "fc.weight", shape: [10, 90], dtype: "float32"}
      - {name: "fc.bias", shape: [10], dtype: "float32"}
    tied: ["bn.bias"]
    fwd_flops: 1800
    io_elems: 100
    saved_elems: 0
)";

TEST(ModelFile, CarriesLayersParametersAndTheirOrder) {
  const Model m = parse_model_file(kModelFile, "tiny.yaml");
  EXPECT_EQ(m.name, "tiny");
  EXPECT_EQ(m.sample_unit, "images");
  ASSERT_EQ(m.layers.size(), 3u);
  EXPECT_EQ(m.layers[0].kind, LayerKind::kConv);
  EXPECT_TRUE(m.layers[0].param_tensors.empty());
  EXPECT_EQ(m.layers[0].frozen_tensors, (std::vector<int64_t>{216}));
  EXPECT_EQ(m.layers[2].param_tensors, (std::vector<int64_t>{900, 10}));
  EXPECT_EQ(m.layers[2].param_names, (std::vector<std::string>{"fc.weight", "fc.bias"}));
  EXPECT_EQ(m.params(), 926);
  EXPECT_EQ(m.frozen_params(), 216);
  EXPECT_DOUBLE_EQ(m.layers[1].bwd_flops_factor, 2.0);  // the default
  EXPECT_DOUBLE_EQ(m.layers[0].activation_elems, 100);
  // Trainable tensors in layer order: bn.weight 0, bn.bias 1, fc.weight 2, fc.bias 3.
  EXPECT_EQ(m.gradient_order, (std::vector<int>{0, 1, 3, 2}));
}

TEST(ModelFile, GradientOrderDecidesTheBuckets) {
  const Model m = parse_model_file(kModelFile, "tiny.yaml");
  const auto buckets = assign_buckets(gradient_tensors(m, 4), 64, 1e9);
  ASSERT_EQ(buckets.size(), 2u);
  // bn.weight + bn.bias = 64 bytes close the first bucket; the frozen conv has no gradient.
  ASSERT_EQ(buckets[0].tensors.size(), 2u);
  EXPECT_EQ(buckets[0].tensors[0].layer, 1);
  EXPECT_EQ(buckets[0].tensors[1].tensor, 1);
  EXPECT_DOUBLE_EQ(buckets[1].bytes, 3640);
  EXPECT_EQ(buckets[1].tensors[0].tensor, 1);  // fc.bias before fc.weight
}

// Frozen parameters are weights only: no gradient, no optimizer state, no bucket copy.
TEST(ModelFile, FrozenParametersTakeWeightMemoryOnly) {
  const Model m = parse_model_file(kModelFile, "tiny.yaml");
  Scenario s;
  s.cluster.nodes = 2;
  s.cluster.gpu.memory_bytes = 80e9;
  s.training.optimizer = Optimizer::kAdam;
  const MemoryReport r = memory_report(s, m);
  EXPECT_DOUBLE_EQ(r.weights, (926 + 216) * 4.0);
  EXPECT_DOUBLE_EQ(r.gradients, 926 * 4.0);
  EXPECT_DOUBLE_EQ(r.optimizer_state, 926 * 8.0);
}

std::string with(std::string text, const std::string& from, const std::string& to) {
  const size_t at = text.find(from);
  EXPECT_NE(at, std::string::npos) << from;
  return text.replace(at, from.size(), to);
}

std::string file_error(const std::string& text) {
  return error_of([&] { parse_model_file(text, "m.yaml"); });
}

TEST(ModelFile, MistakesAreLocated) {
  EXPECT_EQ(file_error(with(kModelFile, "kind: \"batch_norm\"", "kind: \"batchnorm\"")),
            "m.yaml:16:11: layers[1].kind: unknown layer kind 'batchnorm'; allowed: conv, "
            "linear, batch_norm, layer_norm, activation, pool, embedding, attention, softmax, "
            "dropout, elementwise, loss");
  EXPECT_EQ(file_error(with(kModelFile, "name: \"fc.bias\", shape", "name: \"bn.bias\", shape")),
            "m.yaml:27:16: layers[2].params[1].name: parameter 'bn.bias' is listed twice (a "
            "tied parameter is listed once, by the first layer that uses it, and named under "
            "`tied` by the others)");
  EXPECT_EQ(file_error(with(kModelFile, "parameters: 1142", "parameters: 1000")),
            "m.yaml:4:13: parameters: says 1000 parameters, but the layers list 1142");
  EXPECT_EQ(file_error(with(kModelFile, "\"fc.bias\", \"fc.weight\"]", "\"fc.bias\", \"fc.w\"]")),
            "m.yaml:5:53: gradient_order[3]: unknown parameter 'fc.w'");
  EXPECT_EQ(
      file_error(with(kModelFile, "\"fc.bias\", \"fc.weight\"]", "\"fc.bias\", \"conv.weight\"]")),
      "m.yaml:5:53: gradient_order[3]: parameter 'conv.weight' is not trainable: it has "
      "no gradient");
  EXPECT_EQ(file_error(with(kModelFile, "tied: [\"bn.bias\"]", "tied: [\"wte.weight\"]")),
            "m.yaml:28:12: tied parameter 'wte.weight' is not listed in any layer's params");
  EXPECT_EQ(file_error(with(kModelFile, "fwd_flops: 64", "fwd_flops: -64")),
            "m.yaml:20:16: layers[1].fwd_flops: expected a number >= 0 and <= 1e+18, got -64");
  EXPECT_EQ(file_error(with(kModelFile, "format: 1", "format: 2")),
            "m.yaml:1:9: format: this ddpsim reads model files of format 1");
  EXPECT_EQ(file_error(with(kModelFile,
                            "shape: [8], dtype: \"float32\"}\n      - {name: "
                            "\"bn.bias\"",
                            "shape: [8], dtype: \"float33\"}\n      - {name: \"bn.bias\"")),
            "m.yaml:18:48: layers[1].params[0].dtype: unknown dtype 'float33'; allowed: "
            "float32, float16, bfloat16, float64, int64, int32, int8, uint8, bool, "
            "float8_e4m3fn, float8_e5m2");
  EXPECT_EQ(file_error(with(kModelFile, "    io_elems: 24\n", "")),
            "m.yaml:15:5: missing required key 'io_elems' in layers[1] (activation elements "
            "read + written per sample)");
  EXPECT_EQ(file_error("- 1\n"),
            "m.yaml:1:1: a model file is a mapping with format, name and layers "
            "(docs/model-import.md)");
  // yaml-cpp alone would keep the first document and drop the second without a word.
  EXPECT_EQ(file_error(std::string(kModelFile) + "---\nname: \"other\"\n"),
            "m.yaml:33:1: a second YAML document starts here (after '---'), but a model file "
            "holds one document; put each document in a file of its own");
}

// ---------------------------------------------------------------- scenario keys

const char* const kCluster =
    "cluster: {nodes: 1, gpus_per_node: 2, gpu: a100-sxm-80gb, intra_node: {kind: nvswitch, "
    "bandwidth: 300GB/s, latency: 1us}, pcie: 32GB/s}\n";

TEST(ModelKeys, FileAndHfConfigLoadAtTheEdge) {
  const auto dir = kScratch.fresh("keys");
  std::ofstream(dir / "tiny.yaml") << kModelFile;
  const Scenario a = parse_scenario_text(std::string(kCluster) + "model: {file: tiny.yaml}\n",
                                         (dir / "s.yaml").string());
  ASSERT_TRUE(a.model.loaded);
  EXPECT_EQ(a.model.name, "tiny");
  Model m;
  std::string error;
  ASSERT_TRUE(build_model(a.model, &m, &error)) << error;
  EXPECT_EQ(m.params(), 926);

  const Scenario b = parse_scenario_text(std::string(kCluster) + "model: {hf_config: " + kConfigs +
                                             "llama-2-7b/config.json, sequence_length: 2048}\n",
                                         (dir / "s.yaml").string());
  ASSERT_TRUE(build_model(b.model, &m, &error)) << error;
  EXPECT_EQ(m.name, "llama-2-7b");
  EXPECT_EQ(m.sequence_length, 2048);
  EXPECT_EQ(b.model.sequence_length, 2048);
}

// A model file and a config.json shape the result as much as the scenario does: the run's
// provenance names each with its role and the SHA-256 of the bytes read.
TEST(ModelKeys, ModelFilesAndConfigsAreRecordedInputs) {
  const auto dir = kScratch.fresh("provenance");
  std::ofstream(dir / "tiny.yaml") << kModelFile;
  const std::string config = kConfigs + "mistral-7b-v0.1/config.json";
  set_inputs_read({});
  parse_scenario_text(std::string(kCluster) + "model: {file: tiny.yaml}\n",
                      (dir / "s.yaml").string());
  parse_scenario_text(std::string(kCluster) + "model: {hf_config: " + config + "}\n",
                      (dir / "s.yaml").string());
  const std::vector<InputRecord>& inputs = inputs_read();
  ASSERT_EQ(inputs.size(), 2u);
  EXPECT_EQ(inputs[0].role, "model_file");
  EXPECT_EQ(inputs[0].path, (dir / "tiny.yaml").string());
  EXPECT_EQ(inputs[0].bytes, std::string(kModelFile).size());
  EXPECT_EQ(inputs[0].sha256, sha256_hex(kModelFile));
  EXPECT_EQ(inputs[1].role, "hf_config");
  EXPECT_EQ(inputs[1].path, config);
  EXPECT_EQ(inputs[1].sha256, sha256_hex(testing::read_text(config)));
}

TEST(ModelKeys, MistakesAreLocated) {
  const auto dir = kScratch.fresh("key-mistakes");
  std::ofstream(dir / "tiny.yaml") << kModelFile;
  const std::string s = (dir / "s.yaml").string();
  auto parse = [&](const std::string& model) {
    return error_of([&] { parse_scenario_text(std::string(kCluster) + model, s); });
  };
  EXPECT_EQ(parse("model: {name: resnet50, file: tiny.yaml}\n"),
            s + ":2:31: model.file: give one of name, file and hf_config, not model.name and "
                "model.file");
  EXPECT_EQ(parse("model: {file: tiny.yaml, sequence_length: 128}\n"),
            s + ":2:43: model.sequence_length: sequence_length does not apply to model.file "
                "(the file fixes the shapes; export it again with other inputs)");
  EXPECT_EQ(
      parse("model: {hf_config: " + kConfigs + "gpt2/config.json,\n  sequence_length: 2048}\n"),
      s + ":3:20: model.sequence_length for 'gpt2' must be at most 1024 (its "
          "max_position_embeddings), got 2048");
  EXPECT_EQ(parse("model: {file: nope.yaml}\n"),
            s + ":2:15: model.file: file not found: 'nope.yaml' (looked for '" +
                (dir / "nope.yaml").string() + "')");
  EXPECT_EQ(parse("model: {sequence_length: 8}\n"),
            s + ":2:1: missing required key 'name' in model (a model zoo key such as resnet50; "
                "see `ddpsim models`), or 'file' (a model file exported from PyTorch), or "
                "'hf_config' (a Hugging Face config.json)");
}

}  // namespace
}  // namespace ddpsim
