// "How many CPU cores keep the GPUs fed?" from the loader's closed forms (loader_rates.h): the
// smallest cores per node and loader workers per GPU whose decode rate reaches the rate one GPU
// trains at, over the decode rate's plausible range (the ledger's data.decode.samples_per_core
// row: 0.5x-2x the stated or defaulted rate), and what binds instead when cores cannot help:
// the worker cap (data.workers_per_gpu) or the store or PCIe. Pure: no SimGrid, no files.
#pragma once

#include <string>

#include "sim/scenario/scenario.h"

namespace ddpsim {

struct CoresAnswer {
  double train_rate = 0;  // samples/s one GPU computes without waiting
  double per_core = 0;    // data.decode.samples_per_core as stated or defaulted
  // At per_core: the smallest whole number of loader workers per GPU (one core each) and of
  // cores per node (shared evenly by the node's GPUs) whose decode rate >= train_rate.
  int workers_per_gpu = 0;
  int cores_per_node = 0;
  // The same at the decode rate's range ends: a fast CPU (high x per_core) needs the fewest
  // cores, a slow one (low x per_core) the most.
  double rate_low = 0, rate_high = 0;  // samples/s per core at the range's ends
  int cores_fast = 0, cores_slow = 0;
  // What no number of cores fixes: the store's or PCIe's rate per GPU below train_rate ("" when
  // neither binds): "storage 1,234 images/s per GPU".
  std::string other_limit;
};

// The decode rate's plausible range as factors of the stated or defaulted rate: the caller reads
// it from the ledger's data.decode.samples_per_core row (a room above this one).
struct DecodeRange {
  double low = 1, high = 1;
};

// `train_rate` > 0: samples/s per GPU; `h2d_bandwidth` as loader_rates takes it. CPU decode only.
CoresAnswer cores_to_feed(const Scenario& scenario, double train_rate, const DecodeRange& range,
                          double h2d_bandwidth = 0);

// Why more cores would not feed the GPUs, when the loader is slower than training: the worker
// cap binds (cores beyond workers_per_gpu x gpus_per_node stay idle) or the store / PCIe does.
// "" when the loader keeps up or decode by cores binds (more cores would help).
std::string loader_limit_warning(const Scenario& scenario, double train_rate,
                                 double h2d_bandwidth = 0);

}  // namespace ddpsim
