// libFuzzer entry point of nccl_tests_check.h (what it checks is described there).
#include <cstddef>
#include <cstdint>

#include "tests/fuzz/nccl_tests_check.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ddpsim::fuzz::check_nccl_tests(data, size);
  return 0;
}
