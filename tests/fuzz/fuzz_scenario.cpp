// libFuzzer entry point of scenario_check.h (what it checks is described there).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/scenario_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ddpsim::fuzz::check_scenario(data, size);
  return 0;
}
