// GEMM through cuBLASLt (single) and cuBLAS (strided batched, for attention), row-major with the
// same meaning as kernels/reference/gemm.h: C (m x n) = alpha * op(A) op(B) + beta * C.
// Math per precision, as PyTorch runs it: fp32 strict FP32 (no TF32), tf32 FP32 data on TF32
// tensor cores, fp16 / bf16 16-bit data with fp32 accumulation on tensor cores.
// A GemmPlan picks its algorithm once (cuBLASLt heuristics), so timed runs do no planning.
#pragma once

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdint>
#include <memory>
#include <string>

#include "kernels/device_buffer.h"
#include "kernels/dtype.h"

namespace ddpsim::kernels {

enum class GemmMath { kFp32, kTf32, kFp16, kBf16 };

DType gemm_dtype(GemmMath math);  // element type of A, B and C
const char* gemm_math_name(GemmMath math);

// Owns the cuBLAS and cuBLASLt handles and a workspace, bound to one stream.
class Blas {
 public:
  explicit Blas(cudaStream_t stream, size_t workspace_bytes = 64ull << 20);
  ~Blas();
  Blas(const Blas&) = delete;
  Blas& operator=(const Blas&) = delete;

  cublasHandle_t blas() const { return blas_; }
  cublasLtHandle_t lt() const { return lt_; }
  cudaStream_t stream() const { return stream_; }
  void* workspace() const { return workspace_.get(); }
  size_t workspace_bytes() const { return workspace_.bytes(); }
  std::string version() const;  // "13.1.0"

  // Strided batched: batch independent products, operand i at base + i * stride (elements).
  void gemm_strided_batched(GemmMath math, bool trans_a, bool trans_b, int64_t m, int64_t n,
                            int64_t k, float alpha, const void* a, int64_t stride_a, const void* b,
                            int64_t stride_b, float beta, void* c, int64_t stride_c, int64_t batch);

 private:
  cudaStream_t stream_;
  cublasHandle_t blas_ = nullptr;
  cublasLtHandle_t lt_ = nullptr;
  DeviceBuffer workspace_;
};

class GemmPlan {
 public:
  GemmPlan(Blas& blas, GemmMath math, bool trans_a, bool trans_b, int64_t m, int64_t n, int64_t k);
  ~GemmPlan();
  GemmPlan(const GemmPlan&) = delete;
  GemmPlan& operator=(const GemmPlan&) = delete;

  void run(float alpha, const void* a, const void* b, float beta, void* c);
  double flops() const { return 2.0 * m_ * n_ * k_; }

 private:
  void plan(GemmMath math, bool trans_a, bool trans_b);
  void release();

  Blas& blas_;
  int64_t m_, n_, k_;
  cublasLtMatmulDesc_t desc_ = nullptr;
  cublasLtMatrixLayout_t first_ = nullptr, second_ = nullptr, out_ = nullptr;
  cublasLtMatmulAlgo_t algo_{};
};

}  // namespace ddpsim::kernels
