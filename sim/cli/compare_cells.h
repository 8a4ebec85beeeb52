// The cells of `ddpsim compare`: what the table and the CSV need of one simulation, and running
// many simulations `-j` at a time with results identical to one at a time.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/scenario/scenario.h"

namespace ddpsim::cli {

// What the table and the CSV need of one simulation; crosses a process boundary as text.
struct Outcome {
  double samples_per_second = 0, iteration_time = 0, exposed_comm_share = 0, memory = 0;
  double tokens_per_second = 0, mfu = 0, hfu = 0;  // transformers only (model_flops.h), else 0
  int gpus = 0, max_batch = 0;
  bool fits = true;
  std::string bottleneck;
};

// Simulates every scenario, `jobs` at a time (forked processes: SimGrid allows one engine per
// process), and returns their outcomes in order. `label(i)` names a run in the progress lines on
// stderr. A failed run fails the comparison with the child's own message (an InputError stays
// exit 2). Each child hands its numbers back as hexadecimal floats, so -j N equals -j 1 to the bit.
std::vector<Outcome> simulate_all(const std::vector<const Scenario*>& scenarios, int jobs,
                                  const std::function<std::string(size_t)>& label);

}  // namespace ddpsim::cli
