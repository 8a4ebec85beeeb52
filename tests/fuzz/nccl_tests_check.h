// Fuzz check: the nccl-tests log importer (`ddpsim calibrate --import-nccl-tests`): read the log as
// the collective the first byte picks (the byte stays part of the log, so seeds are plain logs),
// fit the alpha-beta ranges, print the table, and write the sweep into a profile that must read
// back. Accepted logs give finite, non-negative fits whose ranges cover [0, inf) contiguously.
#pragma once

#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <string>

#include "sim/measurements/nccl_tests_import.h"
#include "sim/measurements/profile_yaml.h"
#include "tests/fuzz/fuzz_contract.h"

namespace ddpsim::fuzz {

namespace nccl_tests_detail {

// import_nccl_tests() reads a path, as `ddpsim calibrate --import-nccl-tests` does; a private
// file in memory-backed /dev/shm keeps it cheap. It is removed when the process exits.
struct ScratchFile {
  std::string path;
  ~ScratchFile() { std::remove(path.c_str()); }
};

inline const std::string& scratch_path() {
  static const ScratchFile file{"/dev/shm/ddpsim-fuzz-nccl-" + std::to_string(::getpid()) + ".log"};
  return file.path;
}

}  // namespace nccl_tests_detail

// One input: accepted, or refused with an InputError; anything else is a finding.
inline void check_nccl_tests(const uint8_t* data, size_t size) {
  if (size == 0) return;
  const auto op = static_cast<CollectiveOp>(data[0] % 4);
  const std::string text(reinterpret_cast<const char*>(data), size);
  {
    std::ofstream out(nccl_tests_detail::scratch_path(), std::ios::binary | std::ios::trunc);
    out << text;
  }
  fuzz::expect_only_input_errors([&] {
    const CollectiveSweep sweep =
        import_nccl_tests(nccl_tests_detail::scratch_path(), op, AllReduceAlgorithm::kAuto);
    for (size_t i = 0; i < sweep.samples.size(); ++i) {
      if (!(sweep.samples[i].bytes > 0) || !(sweep.samples[i].seconds > 0))
        fuzz::finding("accepted a sample that is not positive");
      if (i > 0 && !(sweep.samples[i].bytes > sweep.samples[i - 1].bytes))
        fuzz::finding("accepted sizes that do not increase");
    }
    if (sweep.fit.empty()) fuzz::finding("empty fit");
    if (sweep.fit.front().min_bytes != 0 || !std::isinf(sweep.fit.back().max_bytes))
      fuzz::finding("fit ranges do not cover [0, inf)");
    for (size_t i = 0; i < sweep.fit.size(); ++i) {
      const AlphaBetaPoint& r = sweep.fit[i];
      fuzz::expect_finite(r.alpha, "alpha");
      fuzz::expect_finite(r.beta, "beta");
      // The first alpha is a latency; a later one is an intercept, its start time is positive.
      if (r.beta < 0 || (i == 0 ? r.alpha < 0 : !(r.alpha + r.beta * r.min_bytes > 0)))
        fuzz::finding("negative slope, latency or start time");
      if (i > 0 && r.min_bytes != sweep.fit[i - 1].max_bytes)
        fuzz::finding("ranges not contiguous");
      if (i > 0) {
        const double left = sweep.fit[i - 1].alpha + sweep.fit[i - 1].beta * r.min_bytes;
        const double right = r.alpha + r.beta * r.min_bytes;
        if (std::abs(right - left) > 1e-9 * left) fuzz::finding("fit jumps at a range boundary");
      }
    }
    for (const CollectiveSample& s : sweep.samples) fuzz::expect_finite(s.fit_error, "fit error");
    (void)format_sweep_table(sweep);

    // `calibrate --import-nccl-tests` writes the table into a profile, read again later.
    CalibrationProfile profile;
    profile.collectives.push_back(sweep);
    try {
      parse_profile(profile_to_yaml(profile), "written.yaml");
    } catch (const InputError& e) {
      fuzz::finding(std::string("an imported table does not read back: ") + e.what());
    }
  });
}

}  // namespace ddpsim::fuzz
