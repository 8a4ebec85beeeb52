// Strict parsing and printing of the physical quantities users write in scenarios.
//
// Sizes:      B, KB, MB, GB, TB (powers of 1000) and KiB, MiB, GiB, TiB (powers of 1024).
// Bandwidth:  B/s, KB/s, MB/s, GB/s, TB/s, KiB/s .. GiB/s (bytes per second) and
//             bps, Kbps, Mbps, Gbps, Tbps (bits per second; also written Gb/s or Gbit/s).
//             Returned in bytes per second. A space may separate number and unit ("400 Gb/s").
// Duration:   ns, us, ms, s, min. Returned in seconds.
// Rate:       FLOPS, GFLOPS, TFLOPS, PFLOPS. Returned in FLOP/s.
// A bare number is accepted only where the caller passes `allow_bare` (then it is taken in
// the base unit). Anything else (unknown suffix, trailing junk, NaN, inf) is an error whose
// text names the allowed units and every near unit with its meaning ("GBps": GB/s or Gbps).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace ddpsim::units {

enum class Kind { kBytes, kBandwidth, kDuration, kFlopRate };

struct Parsed {
  std::optional<double> value;  // set on success
  std::string error;            // set on failure: what was wrong and what is allowed
};

Parsed parse(std::string_view text, Kind kind, bool allow_bare = false);

// Human-readable forms used in tables: "25.0 MiB", "25.0 GB/s", "1.23 ms". Sizes are always in
// binary units (B, KiB, MiB, GiB, TiB: powers of 1024), bandwidths always in decimal ones
// (B/s, KB/s, MB/s, GB/s, TB/s: powers of 1000), as datasheets and NIC speeds are quoted.
std::string format_bytes(double bytes);
std::string format_bandwidth(double bytes_per_second);
std::string format_duration(double seconds);
std::string format_flops(double flop_per_second);
// A rate (samples/s, images/s): three significant digits below 100 ("12.3", "0.457"), whole
// with thousands separators from 100 ("58,534").
std::string format_rate(double per_second);

// "bytes", "bandwidth", ... and the list of accepted suffixes for error messages.
std::string allowed_units(Kind kind);

}  // namespace ddpsim::units
