// Imports the text output of NVIDIA nccl-tests (all_reduce_perf and friends) so users with a
// cluster can calibrate the network without running our harness there. The format, as printed
// by nccl-tests 2.x:
//   # nThread 1 nGpus 1 minBytes 8 maxBytes 4294967296 step: 2(factor) ...
//   #  Rank  0 Group  0 Pid  4242 on node-a device  0 [0x07] NVIDIA A100-SXM4-80GB
//   #                       out-of-place                       in-place
//   #       size   count   type   redop   root   time   algbw   busbw  #wrong   time  ...
//           8      2      float   sum     -1     35.1   0.00    0.00    0      34.9  ...
// The columns are found by name in the header (older versions have no `root` column and call
// `#wrong` `error`); the out-of-place time (us) is taken. NCCL INFO/WARN lines and launcher noise
// (lines that start with neither '#' nor a digit) are ignored; a row that starts with a digit
// but does not match the header is an error at its line and column.
#pragma once

#include <string>
#include <vector>

#include "sim/profile/alpha_beta_fit.h"
#include "sim/profile/calibration_profile.h"

namespace ddpsim {

struct NcclTestsLog {
  std::vector<CollectiveSample> samples;  // out-of-place, increasing size
  int ranks = 0;                          // "# Rank" lines (0 when the log has none)
  int nodes = 0;                          // distinct host names in those lines
  std::string device;                     // device name of the first rank line
  std::string nccl_version;               // from "NCCL version 2.19.3+cuda12.3", if present
};

// Parses a log's text. `file` names it in errors. For all_reduce and broadcast the importer
// checks count * sizeof(type) == size, which catches a log of another collective passed as one.
NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& file,
                                  CollectiveOp op = CollectiveOp::kAllReduce);

// Reads and parses `path`, fits alpha-beta ranges, and returns the sweep with every sample's fit
// error. `algorithm` labels the table (auto: whatever NCCL picked, i.e. no NCCL_ALGO was set).
CollectiveSweep import_nccl_tests(const std::string& path, CollectiveOp op,
                                  AllReduceAlgorithm algorithm,
                                  const AlphaBetaFitOptions& options = {});

// The fit of a sweep's samples, written back into `sweep` (fit ranges and per-sample errors).
void fit_sweep(CollectiveSweep* sweep, const AlphaBetaFitOptions& options = {});

// nccl-tests' bus bandwidth factor for `op` over `ranks` (all-reduce: 2(n-1)/n).
double bus_bandwidth_factor(CollectiveOp op, int ranks);

// A table like nccl-tests prints (size, count-free): size, time, algbw, busbw, fitted time, error.
std::string format_sweep_table(const CollectiveSweep& sweep);

}  // namespace ddpsim
