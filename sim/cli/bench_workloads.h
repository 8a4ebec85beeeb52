// `ddpsim bench --workloads`: the commands users run on an LLM job, timed as they run them
// (default iterations, default scope, -j as given; issue 33): a sweep point of Llama-3-8B zero3
// at 128 GPUs and the slowest bundled scenario; with `heavy`, the three-strategy
// `compare --uncertainty 32` at 128 GPUs, the sweep points at 512 and 1,024 GPUs, the banded
// 8-1,024 sweep and `validate --uncertainty 8`, which take minutes each. Each row: wall time,
// CPU time and peak memory of the command with its children, and the machine's load.
#pragma once

#include "sim/cli/table_output.h"

namespace ddpsim::cli {

// Returns the exit code (1 when a command failed).
int bench_workloads(const TableFormat& format, int jobs, bool heavy);

}  // namespace ddpsim::cli
