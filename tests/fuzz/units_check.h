// Fuzz check: units::parse, the strict quantity parser behind every size, bandwidth,
// duration and FLOP rate of scenarios and profiles. The first byte picks the kind and whether a
// bare number is allowed; accepted values are finite and format back without throwing.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/text/units.h"
#include "tests/fuzz/fuzz_contract.h"

namespace ddpsim::fuzz {

// One input: accepted, or refused with an InputError; anything else is a finding.
inline void check_units(const uint8_t* data, size_t size) {
  if (size == 0) return;
  const auto kind = static_cast<units::Kind>(data[0] % 4);
  const bool allow_bare = (data[0] & 4) != 0;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);
  fuzz::expect_only_input_errors([&] {
    const units::Parsed parsed = units::parse(text, kind, allow_bare);
    if (parsed.value.has_value() == !parsed.error.empty())
      fuzz::finding("exactly one of value and error must be set");
    if (!parsed.value) return;
    fuzz::expect_finite(*parsed.value, "parsed quantity");
    const double v = *parsed.value;
    (void)units::format_bytes(v);
    (void)units::format_bandwidth(v);
    (void)units::format_duration(v);
    (void)units::format_flops(v);
  });
}

}  // namespace ddpsim::fuzz
