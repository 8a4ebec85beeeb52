// The hidden choices as rows of the assumption ledger (docs/assumptions.md, issue 25): the
// attention implementation, the gradient dtype on the wire and the CPU decode rate per core.
// Each row is listed only where it shapes the prediction, is `scenario` where stated (by either
// name of the gradient dtype, or by a Hugging Face config's attn_implementation), a default
// under `assumed:`, and a draw at each of its ends moves the cost models the documented way:
// eager attention keeps more activations and takes longer than the fused kernels, 16-bit
// gradients halve the bytes on the wire, a slower core lowers the loader's decode rate; appended
// to the table, they leave the design's earlier columns as they were. Pure (no SimGrid) except
// the last test, which checks the direction on simulated throughput.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/cost/compute_cost.h"
#include "sim/cost/iteration_plan.h"
#include "sim/cost/memory_fit.h"
#include "sim/data/loader_rates.h"
#include "sim/engine/simulation.h"
#include "sim/input/scenario_loader.h"
#include "sim/ledger/ledger.h"
#include "sim/model/model_zoo.h"
#include "sim/text/input_error.h"
#include "sim/uncertainty/latin_hypercube.h"
#include "sim/uncertainty/uncertainty.h"

namespace ddpsim {
namespace {

const std::string kConfigs = std::string(DDPSIM_SOURCE_DIR) + "/scenarios/models/hf/";

// Two GPUs of one node, GPT-2 (the zoo's runs eager attention) in bf16 under DDP, roofline.
const char* kGpt2 = R"(cluster:
  nodes: 1
  gpus_per_node: 2
  gpu: a100-sxm-80gb
  intra_node: {kind: nvswitch, bandwidth: 300GB/s, latency: 1us}
  pcie: 32GB/s
model: {name: gpt2}
training: {batch_per_gpu: 4, precision: bf16, optimizer: adam, iterations: 3}
)";

const char* kRealData =
    "data={sample_bytes: 110KB, decoded_bytes: 150528B, storage: {kind: local, bandwidth: "
    "8GB/s}, decode: {kind: cpu, workers_per_gpu: 4, samples_per_core: 275}}";

Scenario parse(const std::vector<std::string>& overrides, const char* text = kGpt2) {
  return parse_scenario_text(text, "choices.yaml", overrides);
}

const LedgerEntry* entry(const std::vector<LedgerEntry>& ledger, const std::string& key) {
  for (const LedgerEntry& e : ledger)
    if (key == e.row->key) return &e;
  return nullptr;
}

InputSource source_of(const Scenario& s, const std::string& key) {
  const std::vector<LedgerEntry> ledger = build_ledger(s);
  const LedgerEntry* e = entry(ledger, key);
  EXPECT_NE(e, nullptr) << key;
  return e ? e->source : InputSource::kMeasured;
}

Model built(const Scenario& s) {
  Model m;
  std::string error;
  EXPECT_TRUE(build_model(s.model, &m, &error)) << error;
  return m;
}

// The scenario drawn with `key`'s column at u, every other input as it is.
Scenario drawn_at(const Scenario& s, const std::string& key, double u) {
  std::vector<LedgerEntry> only;
  for (const LedgerEntry& e : build_ledger(s))
    if (key == e.row->key) only.push_back(e);
  EXPECT_EQ(only.size(), 1u) << key;
  std::vector<double> column(assumption_rows().size(), 0.5);
  column.at(find_assumption_row(key) - assumption_rows().data()) = u;
  return drawn_scenario(s, only, column);
}

double attention_forward(const Scenario& s) {
  const Model m = built(s);
  const ComputePlan plan = plan_compute(s, m);
  double t = 0;
  for (size_t i = 0; i < m.layers.size(); ++i)
    if (m.layers[i].kind == LayerKind::kAttention) t += plan.layers[i].forward;
  return t;
}

TEST(HiddenChoices, AttentionCodesAreExplicit) {
  EXPECT_EQ(attention_code(Attention::kEager), 0);
  EXPECT_EQ(attention_code(Attention::kSdpa), 1);
  EXPECT_EQ(attention_code(Attention::kFlash), 2);
  for (Attention a : {Attention::kEager, Attention::kSdpa, Attention::kFlash})
    EXPECT_EQ(attention_from_code(attention_code(a)), a);
  EXPECT_EQ(attention_from_code(0.49), Attention::kEager);
  EXPECT_EQ(attention_from_code(1.2), Attention::kSdpa);
  const AssumptionRow& row = *find_assumption_row("model.attention");
  EXPECT_EQ(row.format(0), "eager");
  EXPECT_EQ(row.format(1), "sdpa");
  EXPECT_EQ(find_assumption_row("sync.gradient_dtype")->format(2), "fp16/bf16");
  EXPECT_EQ(find_assumption_row("sync.gradient_dtype")->format(4), "fp32");
  const AssumptionRow& decode = *find_assumption_row("data.decode.samples_per_core");
  EXPECT_EQ(decode.format(1234.4), "1234 samples/s");
  EXPECT_EQ(decode.format(137.5), "138 samples/s");
  EXPECT_EQ(decode.format(42.25), "42.2 samples/s");
  // result.assumptions names what the numbers stand for.
  const nlohmann::json j = ledger_to_json(build_ledger(parse({})));
  bool named = false;
  for (const nlohmann::json& e : j) {
    if (e["key"] == "model.attention") {
      named = true;
      EXPECT_EQ(e["names"],
                nlohmann::json({{"value", "eager"}, {"low", "eager"}, {"high", "sdpa"}}));
    }
    if (e["key"] == "compute.memory_efficiency") {
      EXPECT_FALSE(e.contains("names"));
    }
  }
  EXPECT_TRUE(named);
}

TEST(HiddenChoices, AttentionRowOnlyWhereItsTimeFollowsTheChoice) {
  const std::vector<LedgerEntry> ledger = build_ledger(parse({}));
  const LedgerEntry* e = entry(ledger, "model.attention");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->source, InputSource::kDefault);
  EXPECT_EQ(e->value, 0);  // the zoo's GPT-2: eager
  EXPECT_EQ(e->low, 0);
  EXPECT_EQ(e->high, 1);
  EXPECT_EQ(source_of(parse({"model.attention=eager"}), "model.attention"), InputSource::kScenario);
  EXPECT_EQ(
      source_of(parse({"model.attention=sdpa", "assumed=[model.attention]"}), "model.attention"),
      InputSource::kDefault);
  // No attention layers, or a measured step (the time already holds whatever ran): no row.
  for (const Scenario& s :
       {parse({"model.name=resnet50"}), parse({"compute={mode: measured, step_time: 100ms}"})})
    EXPECT_EQ(entry(build_ledger(s), "model.attention"), nullptr);
  // A Hugging Face config without attn_implementation runs transformers' default (sdpa): a
  // default between sdpa and eager. MPT's config says flash_attention_2: stated.
  const Scenario hf = parse({"model={hf_config: " + kConfigs + "gpt2/config.json}"});
  const std::vector<LedgerEntry> hf_ledger = build_ledger(hf);
  const LedgerEntry* h = entry(hf_ledger, "model.attention");
  ASSERT_NE(h, nullptr);
  EXPECT_EQ(h->source, InputSource::kDefault);
  EXPECT_EQ(h->value, 1);
  EXPECT_EQ(h->low, 0);
  EXPECT_EQ(h->high, 1);
  EXPECT_EQ(source_of(parse({"model={hf_config: " + kConfigs + "mpt-1b/config.json}"}),
                      "model.attention"),
            InputSource::kScenario);
}

TEST(HiddenChoices, AttentionDrawsMoveMemoryAndTimeTheDocumentedWay) {
  for (const Scenario& base :
       {parse({}), parse({"model={hf_config: " + kConfigs + "gpt2/config.json}"})}) {
    const Scenario eager = drawn_at(base, "model.attention", 0.25);
    const Scenario fused = drawn_at(base, "model.attention", 0.75);
    ASSERT_EQ(*eager.model.attention, Attention::kEager);
    ASSERT_EQ(*fused.model.attention, Attention::kSdpa);
    const Model e = built(eager), f = built(fused);
    EXPECT_EQ(e.fwd_flops(), f.fwd_flops());  // the same maths
    EXPECT_GT(memory_report(eager, e).activations, memory_report(fused, f).activations);
    EXPECT_GT(attention_forward(eager), attention_forward(fused));
    // The draw at the scenario's own implementation is the scenario: same activations, time.
    const Scenario same = *base.model.attention == Attention::kEager ? eager : fused;
    EXPECT_EQ(built(same).activation_elems(), built(base).activation_elems());
    EXPECT_EQ(attention_forward(same), attention_forward(base));
  }
  // The loaded Hugging Face model the scenario shares is not re-costed by a draw.
  const Scenario hf = parse({"model={hf_config: " + kConfigs + "gpt2/config.json}"});
  const double before = built(hf).activation_elems();
  drawn_at(hf, "model.attention", 0.25);
  EXPECT_EQ(built(hf).activation_elems(), before);
}

TEST(HiddenChoices, GradientDtypeRowUnderMixedPrecisionAcrossGpus) {
  const std::vector<LedgerEntry> ddp = build_ledger(parse({}));
  const LedgerEntry* e = entry(ddp, "sync.gradient_dtype");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->source, InputSource::kDefault);
  EXPECT_EQ(e->value, 4);  // DDP all-reduces the fp32 .grad under AMP
  EXPECT_EQ(e->low, 2);
  EXPECT_EQ(e->high, 4);
  const std::vector<LedgerEntry> fsdp = build_ledger(parse({"sync.sharding=zero3"}));
  EXPECT_EQ(entry(fsdp, "sync.gradient_dtype")->value, 2);  // reduce_dtype = param_dtype
  EXPECT_EQ(entry(fsdp, "sync.gradient_dtype")->high, 4);
  // fp32 training has no 16-bit gradients to choose; one GPU sends none.
  EXPECT_EQ(entry(build_ledger(parse({"training.precision=fp32"})), "sync.gradient_dtype"),
            nullptr);
  EXPECT_EQ(entry(build_ledger(parse({"cluster.gpus_per_node=1"})), "sync.gradient_dtype"),
            nullptr);
  // Stated under either name: scenario; under `assumed:` by either name: a default.
  EXPECT_EQ(source_of(parse({"sync.gradient_dtype=fp32"}), "sync.gradient_dtype"),
            InputSource::kScenario);
  EXPECT_EQ(source_of(parse({"training.gradient_dtype=bf16"}), "sync.gradient_dtype"),
            InputSource::kScenario);
  EXPECT_EQ(source_of(parse({"training.gradient_dtype=bf16", "assumed=[training.gradient_dtype]"}),
                      "sync.gradient_dtype"),
            InputSource::kDefault);
}

TEST(HiddenChoices, TrainingGradientDtypeIsTheSameInputAndBothAreRefused) {
  EXPECT_EQ(parse({"training.gradient_dtype=bf16"}).sync.gradient_bytes, 2);
  EXPECT_EQ(parse({"training.gradient_dtype=fp32", "sync.sharding=zero3"}).sync.gradient_bytes, 4);
  try {
    parse_scenario_text(
        "cluster: {nodes: 1, gpus_per_node: 2, gpu: a100-sxm-80gb, pcie: 32GB/s,\n"
        "          intra_node: {kind: nvswitch, bandwidth: 300GB/s, latency: 1us}}\n"
        "model: {name: gpt2}\n"
        "training:\n"
        "  precision: bf16\n"
        "  gradient_dtype: bf16\n"
        "sync: {gradient_dtype: bf16}\n",
        "both.yaml");
    ADD_FAILURE() << "both accepted";
  } catch (const InputError& e) {
    EXPECT_STREQ(e.what(),
                 "both.yaml:7:24: sync.gradient_dtype: sync.gradient_dtype and "
                 "training.gradient_dtype (both.yaml:6:19) are the same input: write one of them");
  }
}

TEST(HiddenChoices, GradientDtypeDrawsHalveTheBytesOnTheWire) {
  const Scenario base = parse({});
  const Scenario half = drawn_at(base, "sync.gradient_dtype", 0.25);
  const Scenario full = drawn_at(base, "sync.gradient_dtype", 0.75);
  const Model m = built(base);
  const double params = static_cast<double>(m.params());
  EXPECT_DOUBLE_EQ(build_iteration_plan(half, m).gradient_bytes, 2 * params);
  EXPECT_DOUBLE_EQ(build_iteration_plan(full, m).gradient_bytes, 4 * params);
}

TEST(HiddenChoices, DecodeRateRowOnRealDataWithCpuDecode) {
  // samples_per_core is required with CPU decode: written, so `scenario`, unless assumed.
  EXPECT_EQ(source_of(parse({kRealData}), "data.decode.samples_per_core"), InputSource::kScenario);
  const Scenario assumed = parse({kRealData, "assumed=[data.decode.samples_per_core]"});
  const std::vector<LedgerEntry> ledger = build_ledger(assumed);
  const LedgerEntry* e = entry(ledger, "data.decode.samples_per_core");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->source, InputSource::kDefault);
  EXPECT_DOUBLE_EQ(e->low, 275 * 0.5);
  EXPECT_DOUBLE_EQ(e->high, 275 * 2.0);
  EXPECT_EQ(entry(build_ledger(parse({})), "data.decode.samples_per_core"), nullptr);
  EXPECT_EQ(entry(build_ledger(parse({kRealData, "data.decode={kind: gpu, gpu_time: 0.1ms}"})),
                  "data.decode.samples_per_core"),
            nullptr);
  // A draw at the low end of the range decodes at half the rate, the high end at twice.
  const double nominal = loader_rates(assumed.data, assumed.cluster).decode;
  const Scenario slow = drawn_at(assumed, "data.decode.samples_per_core", 0.0);
  EXPECT_DOUBLE_EQ(loader_rates(slow.data, slow.cluster).decode, nominal * 0.5);
  const Scenario fast = drawn_at(assumed, "data.decode.samples_per_core", 1.0);
  EXPECT_DOUBLE_EQ(loader_rates(fast.data, fast.cluster).decode, nominal * 2.0);
}

// The rows were appended to the table: the design's columns of the earlier rows are the same
// with or without them, so a scenario none of them applies to keeps its bands to the bit.
TEST(HiddenChoices, AppendedRowsLeaveTheEarlierColumnsOfTheDesignAsTheyWere) {
  // The first of the three; rows appended after them (sync.nccl_latency) keep this too.
  size_t first = 0;
  while (std::string(assumption_rows().at(first).key) != "model.attention") ++first;
  EXPECT_EQ(first, 12u);
  const auto before = latin_hypercube(32, static_cast<int>(first), 1);
  const auto after = uncertainty_design(32, 1);
  for (size_t i = 0; i < before.size(); ++i)
    for (size_t j = 0; j < before[i].size(); ++j) ASSERT_EQ(after[i][j], before[i][j]);
}

// Through the engine: a GPT-2 step with eager attention, or 4-byte gradients over a slow link,
// is slower than with the fused kernel or 2-byte gradients.
TEST(HiddenChoices, DrawsMoveSimulatedThroughputTheDocumentedWay) {
  const SimOptions o{TraceGpus::none(), false};
  const Scenario base = parse({"cluster.intra_node.bandwidth=2GB/s"});
  const double eager = simulate(drawn_at(base, "model.attention", 0.25), o).samples_per_second;
  const double fused = simulate(drawn_at(base, "model.attention", 0.75), o).samples_per_second;
  EXPECT_LT(eager, fused);
  const double fp32 = simulate(drawn_at(base, "sync.gradient_dtype", 0.75), o).samples_per_second;
  const double bf16 = simulate(drawn_at(base, "sync.gradient_dtype", 0.25), o).samples_per_second;
  EXPECT_LT(fp32, bf16);
}

}  // namespace
}  // namespace ddpsim
