// libFuzzer entry point of units_check.h (what it checks is described there).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/units_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ddpsim::fuzz::check_units(data, size);
  return 0;
}
