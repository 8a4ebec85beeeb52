// Tables in nccl-tests' own text format (src/common.cu of NVIDIA/nccl-tests: "%12li  %12li  %8s
// %6s  %6i" for size, count, type, redop, root, then "  %7s  %6.2f  %6.2f  %5s" for time,
// algbw, busbw, #wrong, the time printed with 2, 1 or 0 decimals below 100 us, below 10 ms and
// above), so a predicted table reads, and diffs, line by line against a measured one, and
// imports back (nccl_tests_import.h). Only the out-of-place half is printed; #wrong is N/A, as
// nccl-tests prints it with -c 0.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sim/measurements/calibration_profile.h"

namespace ddpsim {

// nccl-tests' `count` column for a buffer of `bytes` (all_gather and reduce_scatter print the
// per-rank count), its redop and root columns, and the time column's text.
long long nccl_tests_count(CollectiveOp op, double bytes, int ranks, int element_bytes = 4);
const char* nccl_tests_redop(CollectiveOp op);
int nccl_tests_root(CollectiveOp op);
std::string nccl_tests_time(double seconds);

// The header lines, one row per sample (float elements) and the "# Avg bus bandwidth" footer.
std::string format_nccl_tests_table(CollectiveOp op, int ranks,
                                    const std::vector<CollectiveSample>& samples);

// nccl-tests' size arguments (-b, -e): an integer with an optional K, M or G suffix (powers of
// 1024, either case), as its parsesize() reads them. nullopt for anything else.
std::optional<double> parse_nccl_tests_size(const std::string& text);

}  // namespace ddpsim
