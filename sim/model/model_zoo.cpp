// The zoo's registry: key, description, sample unit and sequence-length rules of every model,
// and the validation of a ModelSpec before an architecture builder runs.
//
// Sequence lengths (tokens per sample; ModelSpec.sequence_length = 0 picks the default):
// - BERT: default 128, the length of BERT pretraining phase 1 and of most fine-tuning and
//   MLPerf/NVIDIA benchmark runs; at most 512, the size of the position table.
// - GPT-2: default and maximum 1024, the context it was trained with (n_positions).
// - transformer-big: default 128 source and 128 target tokens per sentence pair (with a batch
//   of 28 that is fairseq's --max-tokens 3584); at most 1024 (max_source/target_positions).
// - Llama-2, Llama-3, Mistral (built from their config.json, hf_config.h): default
//   max_position_embeddings, at most 8192; at most max_position_embeddings.
// - ViT-B/16 always has 197 tokens and the CNNs and the MLP have no sequence: giving one is an
//   error rather than being silently ignored.
#include "sim/model/model_zoo.h"

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "sim/model/architectures.h"
#include "sim/model/attention_choice.h"
#include "sim/model/hf_config.h"
#include "sim/model/hf_zoo_configs.h"

namespace ddpsim {
namespace {

struct Recipe {
  ZooEntry entry;
  std::string sample_unit;
  int default_sequence = 0;  // 0: the model has no sequence-length parameter
  int max_sequence = 0;
  std::function<std::vector<Layer>(const ModelSpec& spec, int sequence)> build;
};

zoo::BertConfig bert_large() {
  zoo::BertConfig c;
  c.hidden = 1024;
  c.layers = 24;
  c.heads = 16;
  c.intermediate = 4096;
  return c;
}

zoo::Gpt2Config gpt2_config(int64_t hidden, int64_t layers, int64_t heads) {
  zoo::Gpt2Config c;
  c.hidden = hidden;
  c.layers = layers;
  c.heads = heads;
  return c;
}

Recipe fixed(std::string key, std::string description, std::string unit,
             std::function<std::vector<Layer>()> build) {
  return Recipe{{std::move(key), std::move(description)},
                std::move(unit),
                0,
                0,
                [build](const ModelSpec&, int) { return build(); }};
}

Recipe sequence(std::string key, std::string description, int default_sequence, int max_sequence,
                std::function<std::vector<Layer>(int sequence)> build) {
  return Recipe{{std::move(key), std::move(description)},
                "sequences",
                default_sequence,
                max_sequence,
                [build](const ModelSpec&, int seq) { return build(seq); }};
}

std::vector<Recipe> make_recipes() {
  const zoo::BertConfig base;
  const zoo::BertConfig large = bert_large();
  const zoo::Gpt2Config small = gpt2_config(768, 12, 12);
  const zoo::Gpt2Config medium = gpt2_config(1024, 24, 16);
  const zoo::Gpt2Config gpt_large = gpt2_config(1280, 36, 20);
  const zoo::Gpt2Config xl = gpt2_config(1600, 48, 25);
  std::vector<Recipe> r;
  r.push_back(fixed("resnet50", "ResNet-50 (torchvision), 224x224", "images",
                    [] { return zoo::resnet(50); }));
  r.push_back(fixed("resnet101", "ResNet-101 (torchvision), 224x224", "images",
                    [] { return zoo::resnet(101); }));
  r.push_back(fixed("resnet152", "ResNet-152 (torchvision), 224x224", "images",
                    [] { return zoo::resnet(152); }));
  r.push_back(fixed("resnext50-32x4d", "ResNeXt-50 32x4d (torchvision resnext50_32x4d), 224x224",
                    "images", [] { return zoo::resnext(50, 32, 4); }));
  r.push_back(fixed("resnext101-32x8d", "ResNeXt-101 32x8d (torchvision resnext101_32x8d), 224x224",
                    "images", [] { return zoo::resnext(101, 32, 8); }));
  r.push_back(fixed("vgg16", "VGG-16 (torchvision, no batch norm), 224x224", "images", zoo::vgg16));
  r.push_back(fixed("alexnet", "AlexNet (torchvision), 224x224", "images", zoo::alexnet));
  r.push_back(fixed("inception-v3", "Inception-v3 (torchvision, with aux classifier), 299x299",
                    "images", zoo::inception_v3));
  r.push_back(fixed("vit-b16", "ViT-B/16 (torchvision vit_b_16), 224x224, 197 tokens", "images",
                    zoo::vit_b16));
  r.push_back(sequence("bert-base", "BERT-base encoder + pooler (HF BertModel)", 128, 512,
                       [base](int seq) { return zoo::bert(base, seq, zoo::BertHead::kPooler); }));
  r.push_back(sequence("bert-large", "BERT-large encoder + pooler (HF BertModel)", 128, 512,
                       [large](int seq) { return zoo::bert(large, seq, zoo::BertHead::kPooler); }));
  r.push_back(sequence(
      "bert-base-squad", "BERT-base + SQuAD span head (HF BertForQuestionAnswering, no pooler)",
      128, 512,
      [base](int seq) { return zoo::bert(base, seq, zoo::BertHead::kQuestionAnswering); }));
  r.push_back(sequence(
      "bert-large-squad", "BERT-large + SQuAD span head (HF BertForQuestionAnswering, no pooler)",
      128, 512,
      [large](int seq) { return zoo::bert(large, seq, zoo::BertHead::kQuestionAnswering); }));
  r.push_back(sequence("gpt2", "GPT-2 small, LM head tied to wte (HF GPT2LMHeadModel)", 1024, 1024,
                       [small](int seq) { return zoo::gpt2(small, seq); }));
  r.push_back(sequence("gpt2-medium", "GPT-2 medium, LM head tied to wte (HF)", 1024, 1024,
                       [medium](int seq) { return zoo::gpt2(medium, seq); }));
  r.push_back(sequence("gpt2-large", "GPT-2 large, LM head tied to wte (HF)", 1024, 1024,
                       [gpt_large](int seq) { return zoo::gpt2(gpt_large, seq); }));
  r.push_back(sequence("gpt2-xl", "GPT-2 XL, LM head tied to wte (HF)", 1024, 1024,
                       [xl](int seq) { return zoo::gpt2(xl, seq); }));
  r.push_back(sequence("transformer-big", "Transformer big (fairseq WMT En-De, shared 32768 vocab)",
                       128, 1024, [](int seq) { return zoo::transformer_big(seq); }));
  // LLMs from their published config.json (scenarios/models/hf/), compiled in.
  for (const HfZooConfig& z : hf_zoo_configs()) {
    const HfConfig config = parse_hf_config(z.json, z.path, z.key);
    r.push_back(Recipe{{z.key, z.description},
                       "sequences",
                       hf_default_sequence(config),
                       hf_max_sequence(config),
                       [config](const ModelSpec&, int seq) {
                         Model m;
                         build_hf_model(config, seq, &m, nullptr);
                         return m.layers;
                       }});
  }
  r.push_back(Recipe{{"mlp", "MLP: Linear+ReLU with bias, widths from model.layers"},
                     "samples",
                     0,
                     0,
                     [](const ModelSpec& spec, int) { return zoo::mlp(spec.mlp_layers); }});
  return r;
}

const std::vector<Recipe>& recipes() {
  static const std::vector<Recipe> r = make_recipes();
  return r;
}

std::string known_keys() {
  std::string keys;
  for (const Recipe& r : recipes()) keys += (keys.empty() ? "" : ", ") + r.entry.key;
  return keys;
}

bool fail(std::string* error, const std::string& message) {
  if (error) *error = message;
  return false;
}

// Empty when the widths describe an MLP, otherwise what is wrong with them.
std::string check_mlp_widths(const std::vector<int>& widths) {
  if (widths.size() < 2) {
    return "model 'mlp' needs model.layers with at least 2 widths (input first, e.g. "
           "[1024, 4096, 10]), got " +
           std::to_string(widths.size());
  }
  for (size_t i = 0; i < widths.size(); ++i) {
    if (widths[i] < 1) {
      return "model.layers[" + std::to_string(i) + "] must be a width >= 1, got " +
             std::to_string(widths[i]);
    }
  }
  return "";
}

std::string mlp_description(const std::vector<int>& widths) {
  std::string d = "MLP ";
  for (size_t i = 0; i < widths.size(); ++i) d += (i ? "-" : "") + std::to_string(widths[i]);
  return d + " (Linear+ReLU, bias)";
}

std::string with_sequence(const Recipe& r, int sequence, bool is_default) {
  if (r.default_sequence == 0) return r.entry.description;
  std::string d = r.entry.description + ", " + std::to_string(sequence) + " tokens";
  if (r.entry.key == "transformer-big") d += " per side";
  if (is_default) d += " (max " + std::to_string(r.max_sequence) + ")";
  return d;
}

}  // namespace

const std::vector<ZooEntry>& model_zoo() {
  static const std::vector<ZooEntry> entries = [] {
    std::vector<ZooEntry> e;
    for (const Recipe& r : recipes()) {
      e.push_back({r.entry.key, with_sequence(r, r.default_sequence, true)});
    }
    return e;
  }();
  return entries;
}

bool build_model(const ModelSpec& spec, Model* out, std::string* error) {
  if (spec.loaded) {
    *out = *spec.loaded;
    return true;
  }
  if (!spec.file.empty() || !spec.hf_config.empty())
    return fail(error, "model.file and model.hf_config are read by the scenario loader");
  const Recipe* recipe = nullptr;
  for (const Recipe& r : recipes()) {
    if (r.entry.key == spec.name) recipe = &r;
  }
  if (!recipe) {
    return fail(error, "unknown model '" + spec.name + "'; known models: " + known_keys());
  }
  const std::string& key = recipe->entry.key;
  if (spec.sequence_length < 0) {
    return fail(error, "model.sequence_length must be >= 0 (0 = the default of the model), got " +
                           std::to_string(spec.sequence_length));
  }
  if (spec.sequence_length > 0 && recipe->default_sequence == 0) {
    return fail(error, "model '" + key +
                           "' has no sequence length (model.sequence_length applies to the bert, "
                           "gpt2, transformer-big, llama and mistral models)");
  }
  if (spec.sequence_length > recipe->max_sequence && recipe->default_sequence > 0) {
    return fail(error, "model.sequence_length for '" + key + "' must be at most " +
                           std::to_string(recipe->max_sequence) + " (its position table), got " +
                           std::to_string(spec.sequence_length));
  }
  if (key == "mlp") {
    const std::string problem = check_mlp_widths(spec.mlp_layers);
    if (!problem.empty()) return fail(error, problem);
  } else if (!spec.mlp_layers.empty()) {
    return fail(error, "model.layers applies only to model 'mlp', not '" + key + "'");
  }

  const int sequence = spec.sequence_length > 0 ? spec.sequence_length : recipe->default_sequence;
  Model m;
  m.name = key;
  m.description =
      key == "mlp" ? mlp_description(spec.mlp_layers) : with_sequence(*recipe, sequence, false);
  m.sample_unit = recipe->sample_unit;
  m.sequence_length = sequence;
  m.layers = recipe->build(spec, sequence);
  // model.attention (resolved by the loader): the entries' own defaults are documented in
  // docs/model-assumptions.md; a stated implementation re-costs their attention layers.
  if (spec.attention && !set_attention(&m, *spec.attention))
    return fail(error, "model '" + key + "': its attention layers cannot be re-costed");
  *out = std::move(m);
  return true;
}

}  // namespace ddpsim
