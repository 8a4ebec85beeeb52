// What a simulation predicts for one validation case, in the unit the measurement was published
// in (validation_case.h lists the metrics). Pure: reads a finished SimulationResult.
#pragma once

#include <string>
#include <vector>

#include "sim/results/result.h"
#include "sim/validation/validation_case.h"

namespace ddpsim {

struct Prediction {
  bool ok = false;
  double value = 0;   // in the case's unit
  std::string error;  // why there is no value (ok = false)
};

Prediction predict_case(const ValidationCase& c, const SimulationResult& result);

// nccl-tests' bus bandwidth of an all-reduce of `bytes` on p ranks taking `seconds`:
// algbw x 2(p-1)/p with algbw = bytes / seconds.
double allreduce_bus_bandwidth(double bytes, double seconds, int p);

// True when any case needs the single-GPU baseline run (scaling_efficiency).
bool needs_baseline(const std::vector<ValidationCase>& cases);

}  // namespace ddpsim
