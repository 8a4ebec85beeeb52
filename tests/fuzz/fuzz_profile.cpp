// libFuzzer entry point of profile_check.h (what it checks is described there).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/profile_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ddpsim::fuzz::check_profile(data, size);
  return 0;
}
