// libFuzzer entry point of sweep_check.h (what it checks is described there).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/sweep_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ddpsim::fuzz::check_sweep(data, size);
  return 0;
}
