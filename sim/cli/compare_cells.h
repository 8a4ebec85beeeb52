// The cells of `ddpsim compare`: what the table and the CSV need of one simulation, and running
// many simulations `-j` at a time with results identical to one at a time.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "sim/results/band.h"
#include "sim/scenario/scenario.h"
#include "sim/validation/discrepancy.h"

namespace ddpsim::cli {

// What the table and the CSV need of one simulation; crosses a process boundary as text.
struct Outcome {
  double samples_per_second = 0, iteration_time = 0, exposed_comm_share = 0, memory = 0;
  double comm_share = 0, data_wait_share = 0;  // what binds: the cell's mechanism class
  double tokens_per_second = 0, mfu = 0, hfu = 0;  // transformers only (model_flops.h), else 0
  int gpus = 0, nodes = 0, max_batch = 0;
  bool fits = true;
  std::string bottleneck;
};

// One cell of the table: a (model, NIC, strategy) and what was simulated for it.
struct Cell {
  double samples_per_second = 0;  // the nominal run
  std::vector<double> draws;      // samples/s per draw (--uncertainty)
  MechanismClass mechanism;       // what binds it: whose measured model error it carries
  Discrepancy error;
  Band band;  // draws x model error; its p50 is the cell's headline
  double efficiency = 0;
  bool starved_baseline = false;  // the lone GPU of the baseline is data-loading-bound
  double tokens_per_second = 0, mfu = 0, hfu = 0;  // transformers only (model_flops.h)
  double memory = 0;  // bytes per GPU
  bool fits = true;   // false only where a sharded comparison found it does not fit
  int max_batch = 0;
};

// Simulates every scenario, `jobs` at a time (forked processes: SimGrid allows one engine per
// process), and returns their outcomes in order. `label(i)` names a run in the progress lines on
// stderr. A failed run fails the comparison with the child's own message (an InputError stays
// exit 2). Each child hands its numbers back as hexadecimal floats, so -j N equals -j 1 to the bit.
std::vector<Outcome> simulate_all(const std::vector<const Scenario*>& scenarios, int jobs,
                                  const std::function<std::string(size_t)>& label);

}  // namespace ddpsim::cli
