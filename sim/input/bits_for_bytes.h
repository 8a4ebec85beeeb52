// A link rate written in bits per second where its technology is quoted in bytes per second:
// `intra_node: {kind: nvswitch, bandwidth: 300Gbps}` is 37.5 GB/s, 8x below any NVSwitch, and
// almost surely meant 300GB/s. ddpsim takes the value as written (it may be a throttled or
// odd system) and says so in the results' warnings; nothing is changed. The rates per technology
// and their sources are in docs/cli.md ("Bits for bytes").
#pragma once

#include <optional>
#include <string>

#include "sim/scenario/scenario.h"

namespace ddpsim {

// The warning for `key` (e.g. "cluster.intra_node.bandwidth") written as `text` (e.g. "300Gbps")
// and read as `bytes_per_second`, for a link of `technology` ("nvswitch", "nvlink-mesh",
// "pcie"): when the text is in bits per second, the rate is below the technology's slowest and
// the same number in bytes per second is within its range. nullopt otherwise.
std::optional<std::string> bits_for_bytes_warning(const std::string& key, const std::string& text,
                                                  double bytes_per_second,
                                                  const std::string& technology);

}  // namespace ddpsim
