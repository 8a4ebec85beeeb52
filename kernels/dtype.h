// Element types of activations on the GPU. fp32 and tf32 runs keep fp32 activations; fp16 and
// bf16 (mixed precision) keep 16-bit activations while weights, gradients and optimizer state
// stay fp32, as PyTorch AMP does.
#pragma once

#include <cstddef>

namespace ddpsim::kernels {

enum class DType { kF32, kF16, kBF16 };

inline size_t dtype_size(DType t) { return t == DType::kF32 ? 4 : 2; }

inline const char* dtype_name(DType t) {
  switch (t) {
    case DType::kF32:
      return "fp32";
    case DType::kF16:
      return "fp16";
    case DType::kBF16:
      return "bf16";
  }
  return "?";
}

}  // namespace ddpsim::kernels
