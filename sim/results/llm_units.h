// The units LLM teams read a training run in, for transformers (model_flops.h): tokens/s, tokens/s
// per GPU, MFU and HFU (PaLM appendix B), as the summary prints them.
#pragma once

#include <string>

#include "sim/results/result.h"
#include "sim/scenario/scenario.h"

namespace ddpsim {

// The summary's `tokens` and `MFU` lines (each ending in '\n'); "" for a model without attention.
// `flops_per_token` x `tokens_per_second` over `gpus` x `peak` (FLOP/s per GPU); 0 when any is 0.
double flops_utilisation(double flops_per_token, double tokens_per_second, int gpus, double peak);

std::string llm_summary_lines(const Scenario& scenario, const SimulationResult& result);

}  // namespace ddpsim
