// Which config.json keys each family reads, with HF's defaults where a key may be absent:
//   gpt2     n_embd, n_layer, n_head, vocab_size, n_positions, n_inner (null: 4 n_embd),
//            tie_word_embeddings (true)
//   bert     hidden_size, num_hidden_layers, num_attention_heads, intermediate_size, vocab_size,
//            max_position_embeddings, type_vocab_size (2)
//   llama,   hidden_size, num_hidden_layers, num_attention_heads, num_key_value_heads
//   mistral  (= heads), head_dim (hidden / heads), intermediate_size, vocab_size,
//            max_position_embeddings, tie_word_embeddings (false), attention_bias (false),
//            mlp_bias (false), sliding_window (mistral; null: none)
//   qwen2    as llama, q/k/v always with a bias (modeling_qwen2.py); sliding_window ignored
//            (Qwen2/2.5 configs ship use_sliding_window: false)
//   gemma    as llama, head_dim (256), tie_word_embeddings (true); GeGLU, embeddings scaled
//   gemma2   as gemma, sliding_window (4096) on every other layer, final_logit_softcapping
//            (30.0; null: none), two more RMSNorms per layer
//   phi3     as llama with fused qkv_proj and gate_up_proj; sliding_window as mistral's
//   vit      hidden_size, num_hidden_layers, num_attention_heads, intermediate_size,
//            image_size, patch_size, num_channels (3), qkv_bias (true), id2label / num_labels
// Mixture-of-experts configs (mixtral, qwen2_moe, ... or any config with num_local_experts,
// num_experts or n_routed_experts) are refused: ddpsim does not model experts (their routing,
// all-to-all and per-expert gradients), and a dense reading would be silently wrong.
// Default sequence lengths: GPT-2 n_positions (the context it was trained with); BERT 128 (as
// the zoo's BERT, pretraining phase 1); the decoder families max_position_embeddings, at most
// 8192 (Mistral 7B lists 32768 positions but was trained at 8192: Jiang et al. 2023, table 1).
#include "sim/model/hf_config.h"

#include <algorithm>
#include <filesystem>
#include <optional>
#include <utility>
#include <vector>

#include "sim/model/architectures.h"
#include "sim/model/attention_choice.h"
#include "sim/scenario/yaml_reader.h"
#include "sim/text/input_file.h"

namespace ddpsim {
namespace {

constexpr int64_t kMaxDimension = int64_t{1} << 24;  // 16M: larger than any real width
constexpr int kLlamaDefaultSequenceCap = 8192;
// Transformer blocks: the largest published dense models have 126 (Llama 3.1 405B's
// config.json); a million would build for minutes and take gigabytes (docs/reliability.md).
constexpr int64_t kMaxLayers = 4096;

struct Family {
  const char* model_type;
  std::vector<const char*> architectures;  // the first is the default
};

const std::vector<Family>& families() {
  static const std::vector<Family> f = {
      {"gpt2", {"GPT2LMHeadModel"}},
      {"bert", {"BertModel", "BertForMaskedLM", "BertForPreTraining", "BertForQuestionAnswering"}},
      {"llama", {"LlamaForCausalLM"}},
      {"mistral", {"MistralForCausalLM"}},
      {"qwen2", {"Qwen2ForCausalLM"}},
      {"gemma", {"GemmaForCausalLM"}},
      {"gemma2", {"Gemma2ForCausalLM"}},
      {"phi3", {"Phi3ForCausalLM"}},
      {"vit", {"ViTModel", "ViTForImageClassification"}},
  };
  return f;
}

// The decoder families built by zoo::llama.
bool llama_like(const std::string& model_type) {
  for (const char* t : {"llama", "mistral", "qwen2", "gemma", "gemma2", "phi3"})
    if (model_type == t) return true;
  return false;
}

// transformers' mixture-of-experts model types (their configuration_*.py files).
const char* const kMoeTypes[] = {"mixtral",     "qwen2_moe",   "qwen3_moe", "phimoe",
                                 "deepseek_v2", "deepseek_v3", "dbrx",      "olmoe",
                                 "jamba",       "granitemoe",  "jetmoe",    "switch_transformers",
                                 "nllb_moe",    "gpt_oss",     "llama4",    "minimax"};
const char* const kExpertKeys[] = {"num_local_experts", "num_experts", "n_routed_experts"};

template <class T>
std::string join(const T& items) {
  std::string out;
  for (const auto& i : items) out += (out.empty() ? "" : ", ") + std::string(i);
  return out;
}

class ConfigReader {
 public:
  explicit ConfigReader(const YamlSection& top) : top_(top) {}

  // An integer key; absent or null gives `fallback` (nullopt: the key is required).
  int64_t dim(const char* key, std::optional<int64_t> fallback = std::nullopt, int64_t min = 1,
              int64_t max = kMaxDimension) const {
    auto v = top_.get(key);
    if (!v || v->node.IsNull()) {
      if (fallback) return *fallback;
      fail_at(top_.where(), std::string("missing required key '") + key + "' in config.json");
    }
    return as_int(not_quoted(*v, "number"), min, max);
  }

  // The number of transformer blocks, at most kMaxLayers.
  int64_t layers(const char* key) const { return dim(key, std::nullopt, 1, kMaxLayers); }

  bool flag(const char* key, bool fallback) const {
    auto v = top_.get(key);
    if (!v || v->node.IsNull()) return fallback;
    return as_bool(not_quoted(*v, "true or false"));
  }

  // JSON says what is a number: "32" in quotes is a string, which transformers would not read as
  // a number either (its config classes keep the type they are given).
  static const YamlValue& not_quoted(const YamlValue& v, const char* expected) {
    if (v.node.IsScalar() && v.node.Tag() == "!")
      fail(v, std::string("expected a JSON ") + expected + ", got the string \"" + v.node.Scalar() +
                  "\" (write it without quotes)");
    return v;
  }

  std::optional<YamlValue> get(const char* key) const { return top_.get(key); }

 private:
  const YamlSection& top_;
};

}  // namespace

HfConfig parse_hf_config(const std::string& text, const std::string& path,
                         const std::string& name) {
  const YAML::Node root = load_document(text, path, "JSON", "config.json");
  const SourceLocation start{path, 1, 1};
  if (!root.IsMap()) fail_at(start, "a config.json is a JSON object, e.g. {\"model_type\": ...}");
  YamlContext context(path);
  YamlValue document{root, "", start, start};
  YamlSection top(document, {}, &context);
  ConfigReader r(top);

  HfConfig c;
  c.name = name;
  std::vector<std::string> types;
  for (const Family& f : families()) types.push_back(f.model_type);
  const YamlValue type = top.require("model_type", join(types));
  c.model_type = as_string(type);
  auto refuse_moe = [&](const YamlValue& where, const std::string& what) {
    fail(where, what +
                    " a mixture-of-experts model, which ddpsim does not model yet (expert "
                    "routing, all-to-all and per-expert gradients); supported dense types: " +
                    join(types));
  };
  for (const char* moe : kMoeTypes)
    if (c.model_type == moe) refuse_moe(type, "'" + c.model_type + "' is");
  for (const char* key : kExpertKeys)
    if (auto v = r.get(key); v && !v->node.IsNull()) refuse_moe(*v, "a config with experts is");
  const Family* family = nullptr;
  for (const Family& f : families())
    if (c.model_type == f.model_type) family = &f;
  if (!family)
    fail(type, "model type '" + c.model_type + "' is not supported; supported: " + join(types) +
                   " (or export the model from PyTorch: docs/model-import.md)");
  c.architecture = family->architectures.front();
  if (auto archs = r.get("architectures"); archs && !archs->node.IsNull()) {
    if (!archs->node.IsSequence() || archs->node.size() == 0)
      fail(*archs, "expected a list of architecture names, e.g. [\"" + c.architecture + "\"]");
    YamlValue first{archs->node[0], archs->path + "[0]", {}, archs->where};
    first.where = context.locate(archs->node[0], first.path, archs->where);
    c.architecture = as_string(first);
    if (std::find(family->architectures.begin(), family->architectures.end(), c.architecture) ==
        family->architectures.end())
      fail(first, "architecture '" + c.architecture + "' of model type " + c.model_type +
                      " is not supported; supported: " + join(family->architectures));
  }

  if (auto v = r.get("attn_implementation"); v && !v->node.IsNull()) {
    const std::string impl = as_string(*v);
    c.attention_stated = true;
    if (impl == "eager")
      c.attention = Attention::kEager;
    else if (impl == "sdpa")
      c.attention = Attention::kSdpa;
    else if (impl == "flash_attention_2")
      c.attention = Attention::kFlash;
    else
      fail(*v, "unknown value '" + impl + "'; allowed: eager, sdpa, flash_attention_2");
  }
  if (c.model_type == "gpt2") {
    c.hidden = r.dim("n_embd");
    c.layers = r.layers("n_layer");
    c.heads = r.dim("n_head");
    c.vocab = r.dim("vocab_size");
    c.max_positions = r.dim("n_positions", r.dim("n_ctx", 1024));
    c.intermediate = r.dim("n_inner", 0, 0);
    c.tied = r.flag("tie_word_embeddings", true);
    // HF GPT-2 defaults every dropout to 0.1; a config that sets all three to 0 has none.
    bool any = false;
    for (const char* key : {"attn_pdrop", "resid_pdrop", "embd_pdrop"}) {
      auto v = r.get(key);
      any = any || !v || v->node.IsNull() ||
            as_real(ConfigReader::not_quoted(*v, "number"), 0, false, 1) > 0;
    }
    c.dropout = any;
  } else if (c.model_type == "bert") {
    c.hidden = r.dim("hidden_size");
    c.layers = r.layers("num_hidden_layers");
    c.heads = r.dim("num_attention_heads");
    c.intermediate = r.dim("intermediate_size");
    c.vocab = r.dim("vocab_size");
    c.max_positions = r.dim("max_position_embeddings", 512);
    c.token_types = r.dim("type_vocab_size", 2);
  } else if (c.model_type == "vit") {
    c.hidden = r.dim("hidden_size");
    c.layers = r.layers("num_hidden_layers");
    c.heads = r.dim("num_attention_heads");
    c.intermediate = r.dim("intermediate_size");
    c.image_size = r.dim("image_size", 224);
    c.patch_size = r.dim("patch_size", 16);
    c.channels = r.dim("num_channels", 3);
    c.qkv_bias = r.flag("qkv_bias", true);
    if (c.image_size % c.patch_size != 0)
      fail_at(top.get("patch_size").value_or(document).where,
              "image_size " + std::to_string(c.image_size) + " is not a multiple of patch_size " +
                  std::to_string(c.patch_size));
    if (auto labels = r.get("id2label"); labels && labels->node.IsMap())
      c.labels = static_cast<int64_t>(labels->node.size());
    c.labels = r.dim("num_labels", c.labels > 0 ? c.labels : 2);
  } else {  // llama, mistral, qwen2, gemma, gemma2, phi3
    const std::string& t = c.model_type;
    c.gemma = t == "gemma" || t == "gemma2";
    c.gemma2 = t == "gemma2";
    c.fused_projections = t == "phi3";
    c.qkv_bias = t == "qwen2";
    c.hidden = r.dim("hidden_size");
    c.layers = r.layers("num_hidden_layers");
    c.heads = r.dim("num_attention_heads");
    c.kv_heads = r.dim("num_key_value_heads", c.heads);
    c.head_dim = r.dim("head_dim", c.gemma ? 256 : c.hidden / c.heads);
    c.intermediate = r.dim("intermediate_size");
    c.vocab = r.dim("vocab_size");
    c.max_positions = r.dim("max_position_embeddings", c.gemma ? 8192 : 2048);
    c.tied = r.flag("tie_word_embeddings", c.gemma);
    c.attention_bias = r.flag("attention_bias", false);
    c.mlp_bias = r.flag("mlp_bias", false);
    if (t == "mistral" || t == "phi3") c.sliding_window = r.dim("sliding_window", 0, 0);
    if (c.gemma2) {
      c.sliding_window = r.dim("sliding_window", 4096, 0);
      auto cap = r.get("final_logit_softcapping");
      c.softcap = !cap || (!cap->node.IsNull() && as_real(*cap, 0, false) > 0);
    }
    if (c.heads % c.kv_heads != 0)
      fail_at(top.get("num_key_value_heads").value_or(document).where,
              "num_attention_heads (" + std::to_string(c.heads) +
                  ") must be a multiple of num_key_value_heads (" + std::to_string(c.kv_heads) +
                  ")");
  }
  if (!llama_like(c.model_type) && c.hidden % c.heads != 0) {
    const char* key = c.model_type == "gpt2" ? "n_head" : "num_attention_heads";
    fail_at(top.get(key).value_or(document).where, "the hidden size " + std::to_string(c.hidden) +
                                                       " is not a multiple of the " +
                                                       std::to_string(c.heads) + " heads");
  }
  return c;
}

HfConfig load_hf_config(const std::string& path) {
  namespace fs = std::filesystem;
  const fs::path p(path);
  std::string name = p.stem().string();
  if (p.filename() == "config.json" && p.has_parent_path())
    name = fs::absolute(p).parent_path().filename().string();
  return parse_hf_config(read_input_file(path, "hf_config", "Hugging Face config"), path, name);
}

int hf_default_sequence(const HfConfig& c) {
  if (c.model_type == "vit") return 0;
  if (c.model_type == "bert") return static_cast<int>(std::min<int64_t>(128, c.max_positions));
  if (c.model_type == "gpt2") return static_cast<int>(c.max_positions);
  return static_cast<int>(std::min<int64_t>(kLlamaDefaultSequenceCap, c.max_positions));
}

int hf_max_sequence(const HfConfig& c) {
  return c.model_type == "vit" ? 0 : static_cast<int>(c.max_positions);
}

bool build_hf_model(const HfConfig& c, int sequence, Model* out, std::string* error) {
  auto fail_with = [&](const std::string& message) {
    if (error) *error = message;
    return false;
  };
  if (sequence < 0) return fail_with("model.sequence_length must be >= 0");
  if (c.model_type == "vit" && sequence > 0)
    return fail_with("model '" + c.name + "' is a ViT: its tokens come from the image (" +
                     "image_size / patch_size), it has no model.sequence_length");
  if (sequence > hf_max_sequence(c))
    return fail_with("model.sequence_length for '" + c.name + "' must be at most " +
                     std::to_string(hf_max_sequence(c)) + " (its max_position_embeddings), got " +
                     std::to_string(sequence));
  const int seq = sequence > 0 ? sequence : hf_default_sequence(c);

  Model m;
  m.name = c.name;
  m.sample_unit = "sequences";
  m.sequence_length = seq;
  std::string shape;
  if (c.model_type == "gpt2") {
    zoo::Gpt2Config g;
    g.hidden = c.hidden;
    g.layers = c.layers;
    g.heads = c.heads;
    g.vocab = c.vocab;
    g.max_positions = c.max_positions;
    g.inner = c.intermediate;
    g.tied = c.tied;
    g.fused_attention = c.attention != Attention::kEager;
    g.dropout = c.dropout;
    m.layers = zoo::gpt2(g, seq);
  } else if (c.model_type == "bert") {
    zoo::BertConfig b;
    b.hidden = c.hidden;
    b.layers = c.layers;
    b.heads = c.heads;
    b.intermediate = c.intermediate;
    b.vocab = c.vocab;
    b.max_positions = c.max_positions;
    b.token_types = c.token_types;
    zoo::BertHead head = zoo::BertHead::kPooler;
    if (c.architecture == "BertForMaskedLM") head = zoo::BertHead::kMaskedLm;
    if (c.architecture == "BertForPreTraining") head = zoo::BertHead::kPreTraining;
    if (c.architecture == "BertForQuestionAnswering") head = zoo::BertHead::kQuestionAnswering;
    m.layers = zoo::bert(b, seq, head, c.architecture == "BertModel" ? "" : "bert.");
  } else if (c.model_type == "vit") {
    zoo::VitConfig v;
    v.hidden = c.hidden;
    v.layers = c.layers;
    v.heads = c.heads;
    v.intermediate = c.intermediate;
    v.image = c.image_size;
    v.patch = c.patch_size;
    v.channels = c.channels;
    v.qkv_bias = c.qkv_bias;
    const bool classifier = c.architecture == "ViTForImageClassification";
    v.classes = classifier ? c.labels : 0;
    m.layers = zoo::hf_vit(v, classifier ? "vit." : "");
    m.sample_unit = "images";
    m.sequence_length = 0;
    const int64_t side = c.image_size / c.patch_size;
    shape = ", " + std::to_string(c.image_size) + "x" + std::to_string(c.image_size) + ", " +
            std::to_string(side * side + 1) + " tokens";
  } else {
    zoo::LlamaConfig l;
    l.hidden = c.hidden;
    l.layers = c.layers;
    l.heads = c.heads;
    l.kv_heads = c.kv_heads;
    l.head_dim = c.head_dim;
    l.intermediate = c.intermediate;
    l.vocab = c.vocab;
    l.sliding_window = c.sliding_window;
    l.tied = c.tied;
    l.attention_bias = c.attention_bias;
    l.mlp_bias = c.mlp_bias;
    l.qkv_bias = c.qkv_bias;
    l.gelu_mlp = l.embed_scale = c.gemma;
    l.sandwich_norms = l.alternate_sliding = c.gemma2;
    l.logit_softcap = c.softcap;
    l.fused_projections = c.fused_projections;
    m.layers = zoo::llama(l, seq);
  }
  // The builders' own attention (BERT eager, ViT and Llama fused) gives way to the config's.
  set_attention(&m, c.attention);
  if (shape.empty()) shape = ", " + std::to_string(seq) + " tokens";
  std::string heads = std::to_string(c.heads) + " heads";
  if (c.kv_heads > 0 && c.kv_heads != c.heads) heads += " (" + std::to_string(c.kv_heads) + " KV)";
  m.description = c.architecture + " (HF config): " + std::to_string(c.layers) + " layers, " +
                  "hidden " + std::to_string(c.hidden) + ", " + heads + shape;
  *out = std::move(m);
  return true;
}

}  // namespace ddpsim
