// The `training:` section: batch, precision, optimizer and how many steps to simulate.
#include "sim/scenario/gpu_presets.h"
#include "sim/input/scenario_sections.h"

namespace ddpsim {

void parse_training(const YamlValue& value, YamlContext* context, Scenario* scenario) {
  TrainingSpec& t = scenario->training;
  YamlSection training(value,
                       {"batch_per_gpu", "precision", "optimizer", "gradient_accumulation",
                        "iterations", "warmup", "activation_checkpointing", "gradient_dtype"},
                       context);
  if (auto v = training.get("batch_per_gpu")) t.batch_per_gpu = static_cast<int>(as_int(*v, 1));
  if (auto v = training.get("precision")) {
    t.precision = as_enum<Precision>(*v);
    // The cluster section is parsed first: the GPU is known.
    if (t.precision == Precision::kFp8 && scenario->cluster.gpu.fp8_flops <= 0) {
      fail(*v, "fp8 needs fp8 tensor cores; GPU '" + scenario->cluster.gpu.name +
                   "' has none (presets with fp8: " + fp8_preset_names() +
                   "; a custom GPU gives cluster.gpu.fp8)");
    }
  }
  // FlashAttention-2 has fp16 and bf16 kernels only (fp8 runs attention in bf16).
  const ModelSpec& m = scenario->model;
  if (m.attention == Attention::kFlash &&
      (t.precision == Precision::kFp32 || t.precision == Precision::kTf32)) {
    const std::string said = m.attention_stated ? "model.attention: flash"
                                                : "the config's attn_implementation "
                                                  "flash_attention_2";
    const std::string message = said + " runs in fp16 or bf16 only, but training.precision is " +
                                precision_name(t.precision) +
                                ": train in bf16 or fp16, or use sdpa (fused for every dtype)";
    if (auto v = training.get("precision"); v && !m.attention_stated) fail(*v, message);
    fail_at(m.attention_where, message);
  }
  if (auto v = training.get("optimizer")) t.optimizer = as_enum<Optimizer>(*v);
  if (auto v = training.get("gradient_accumulation")) {
    t.gradient_accumulation = static_cast<int>(as_int(*v, 1));
  }
  if (auto v = training.get("activation_checkpointing")) t.activation_checkpointing = as_bool(*v);
  // The same input as sync.gradient_dtype (parse_sync refuses both and applies the default).
  if (auto v = training.get("gradient_dtype"))
    scenario->sync.gradient_bytes = gradient_dtype_bytes(*v);
  std::optional<YamlValue> iterations = training.get("iterations");
  if (iterations) t.iterations = static_cast<int>(as_int(*iterations, 1));
  std::optional<YamlValue> warmup = training.get("warmup");
  if (warmup) t.warmup = static_cast<int>(as_int(*warmup, 0));
  if (t.warmup >= t.iterations) {
    // Defaults (5 and 1) are consistent, so at least one of the two was written.
    const std::string why = ": at least one measured step must remain after warmup";
    if (warmup) {
      fail(*warmup, "must be less than training.iterations (" + std::to_string(t.iterations) +
                        "), got " + std::to_string(t.warmup) + why);
    }
    fail(*iterations, "must be greater than training.warmup (default " + std::to_string(t.warmup) +
                          "), got " + std::to_string(t.iterations) + why);
  }
}

}  // namespace ddpsim
