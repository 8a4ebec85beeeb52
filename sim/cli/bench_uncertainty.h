// `ddpsim bench --uncertainty`: the issue-25 targets as rows of the bench. Each row runs a real
// ddpsim command (this binary, in a child process, its output discarded) and reports its wall
// time and its CPU time, its children's included: on a machine shared with other work the CPU
// time is the steadier figure (an idle machine needs at least CPU / its cores of wall time). The
// verdict against the target is the wall time's.
#pragma once

#include "sim/cli/table_output.h"

namespace ddpsim::cli {

// `jobs`, `draws`, `seed`: each command's -j, --uncertainty N and --seed. Returns the exit code
// (1 when a command failed).
int bench_uncertainty(const TableFormat& format, int jobs, int draws, long long seed);

}  // namespace ddpsim::cli
