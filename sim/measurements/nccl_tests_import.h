// Imports the text output of NVIDIA nccl-tests (all_reduce_perf and friends) as published: a
// terminal capture, an MPI job's log, or an excerpt pasted into a README or an issue. The table
// nccl-tests prints (2.x):
//   # nThread 1 nGpus 1 minBytes 8 maxBytes 4294967296 step: 2(factor) ...
//   #  Rank  0 Group  0 Pid  4242 on node-a device  0 [0x07] NVIDIA A100-SXM4-80GB
//   #                       out-of-place                       in-place
//   #       size   count   type   redop   root   time   algbw   busbw  #wrong   time  ...
//   #        (B) (elements)                      (us)  (GB/s)  (GB/s)
//           8      2      float   sum     -1     35.1   0.00    0.00    0      34.9  ...
// What is accepted:
// - every header nccl-tests has printed: `size count type redop root time ... #wrong`, the same
//   without `root` and with `error` (2.x before 2021), and `bytes N type op time ... res` (2019
//   and NCCL 1.x tests, times in milliseconds). Columns are found by name; the time unit comes
//   from the units line `(us)`/`(ms)` when there is one, else from the algbw column;
// - launcher prefixes on every line: Open MPI `--tag-output` (`[1,0]<stdout>:`), MPICH/Intel MPI
//   `-prepend-rank` (`[0] `), Slurm `srun --label` (`0: `), and indentation;
// - size-0 rows (`-b 0`), which are skipped; NCCL INFO/WARN lines, shell prompts, Markdown and
//   prose around the table, which are ignored;
// - several tables in one file (a script that ran all_reduce_perf, then all_gather_perf): each
//   table's collective is the `*_perf` binary named before it (a command line, or
//   `# Collective test starting: all_gather_perf`), else what its rows imply (count x sizeof(type)
//   against size, redop, root). The table of the requested collective is imported; when there
//   are several of it (a README showing two runs), the caller says which (`--table N`);
// - rank lines (`# Rank ... on HOST device N [bus] NAME`, older `# Rank N on HOST device ...`,
//   NCCL 1.x `# Device N -> M [bus] NAME`) give the GPU count, nodes and GPU name.
// A line that starts with an integer inside a table is a data row and must match its header;
// anything wrong is an InputError at the line and column, naming what was expected.
#pragma once

#include <string>
#include <vector>

#include "sim/measurements/alpha_beta_fit.h"
#include "sim/measurements/calibration_profile.h"

namespace ddpsim {

struct NcclTestsLog {
  CollectiveOp op = CollectiveOp::kAllReduce;  // the table imported
  int table_line = 0;                          // its header line
  std::vector<CollectiveSample> samples;       // out-of-place, size > 0, increasing
  int ranks = 0;                               // "# Rank" lines of its run (0 when none)
  int nodes = 0;                               // distinct host names in those lines
  std::string device;                          // GPU name of the first rank line
  int device_line = 0;                         // that line (0 when none)
  std::string host;                            // host of the first rank line
  std::string nccl_version;                    // from "NCCL version 2.19.3+cuda12.3", if present
  // From a "# Backend gloo (...)" line, which calibrate/pytorch's torch.distributed sweep prints
  // (nccl-tests never does): the library that measured, "" when the log does not say.
  std::string backend;

  // GPUs per node when the rank lines say (ranks spread evenly over nodes), else 0.
  int gpus_per_node() const { return nodes > 0 && ranks % nodes == 0 ? ranks / nodes : 0; }
};

// Parses a log's text and returns the table of collective `op`: the only one, or with `table` > 0
// the table-th of several (a README with two runs). `file` names it in errors.
NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& file,
                                  CollectiveOp op = CollectiveOp::kAllReduce, int table = 0);

// Reads and parses `path`, fits alpha-beta ranges, and returns the sweep with every sample's fit
// error and where it was measured (GPUs, nodes, GPU name, NCCL version). `algorithm` labels the
// table (auto: whatever NCCL picked, i.e. no NCCL_ALGO was set). `log`, when given, receives the
// parsed table (rank lines, device, NCCL version).
CollectiveSweep import_nccl_tests(const std::string& path, CollectiveOp op,
                                  AllReduceAlgorithm algorithm,
                                  const AlphaBetaFitOptions& options = {},
                                  NcclTestsLog* log = nullptr, int table = 0);

// The profile's device block as far as a log tells it: GPU name, GPUs per node, nodes, first
// host, NCCL version.
DeviceInfo device_from_log(const NcclTestsLog& log);

// The fit of a sweep's samples, written back into `sweep` (fit ranges and per-sample errors).
void fit_sweep(CollectiveSweep* sweep, const AlphaBetaFitOptions& options = {});

// nccl-tests' bus bandwidth factor for `op` over `ranks` (all-reduce: 2(n-1)/n).
double bus_bandwidth_factor(CollectiveOp op, int ranks);

// A table like nccl-tests prints (size, count-free): size, time, algbw, busbw, fitted time, error.
std::string format_sweep_table(const CollectiveSweep& sweep);

}  // namespace ddpsim
