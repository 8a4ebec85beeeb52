#include "kernels/gemm.h"

#include <library_types.h>

#include "kernels/check.h"

namespace ddpsim::kernels {

namespace {

cudaDataType_t data_type(GemmMath math) {
  switch (math) {
    case GemmMath::kFp16:
      return CUDA_R_16F;
    case GemmMath::kBf16:
      return CUDA_R_16BF;
    default:
      return CUDA_R_32F;
  }
}

cublasComputeType_t compute_type(GemmMath math) {
  return math == GemmMath::kTf32 ? CUBLAS_COMPUTE_32F_FAST_TF32 : CUBLAS_COMPUTE_32F;
}

}  // namespace

DType gemm_dtype(GemmMath math) {
  switch (math) {
    case GemmMath::kFp16:
      return DType::kF16;
    case GemmMath::kBf16:
      return DType::kBF16;
    default:
      return DType::kF32;
  }
}

const char* gemm_math_name(GemmMath math) {
  switch (math) {
    case GemmMath::kFp32:
      return "fp32";
    case GemmMath::kTf32:
      return "tf32";
    case GemmMath::kFp16:
      return "fp16";
    case GemmMath::kBf16:
      return "bf16";
  }
  return "?";
}

Blas::Blas(cudaStream_t stream, size_t workspace_bytes)
    : stream_(stream), workspace_(workspace_bytes) {
  try {
    DDPSIM_CUBLAS_CHECK(cublasCreate(&blas_));
    DDPSIM_CUBLAS_CHECK(cublasSetStream(blas_, stream_));
    DDPSIM_CUBLAS_CHECK(cublasSetWorkspace(blas_, workspace_.get(), workspace_.bytes()));
    DDPSIM_CUBLAS_CHECK(cublasLtCreate(&lt_));
  } catch (...) {
    if (blas_ != nullptr) cublasDestroy(blas_);
    throw;
  }
}

Blas::~Blas() {
  if (lt_ != nullptr) cublasLtDestroy(lt_);
  if (blas_ != nullptr) cublasDestroy(blas_);
}

std::string Blas::version() const {
  int v = 0;
  DDPSIM_CUBLAS_CHECK(cublasGetVersion(blas_, &v));
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         std::to_string(v % 100);
}

// Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T: B is cuBLAS's first operand.
void Blas::gemm_strided_batched(GemmMath math, bool trans_a, bool trans_b, int64_t m, int64_t n,
                                int64_t k, float alpha, const void* a, int64_t stride_a,
                                const void* b, int64_t stride_b, float beta, void* c,
                                int64_t stride_c, int64_t batch) {
  const cudaDataType_t t = data_type(math);
  DDPSIM_CUBLAS_CHECK(cublasGemmStridedBatchedEx(
      blas_, trans_b ? CUBLAS_OP_T : CUBLAS_OP_N, trans_a ? CUBLAS_OP_T : CUBLAS_OP_N,
      static_cast<int>(n), static_cast<int>(m), static_cast<int>(k), &alpha, b, t,
      static_cast<int>(trans_b ? k : n), stride_b, a, t, static_cast<int>(trans_a ? m : k),
      stride_a, &beta, c, t, static_cast<int>(n), stride_c, static_cast<int>(batch),
      compute_type(math), CUBLAS_GEMM_DEFAULT));
}

GemmPlan::GemmPlan(Blas& blas, GemmMath math, bool trans_a, bool trans_b, int64_t m, int64_t n,
                   int64_t k)
    : blas_(blas), m_(m), n_(n), k_(k) {
  try {
    plan(math, trans_a, trans_b);
  } catch (...) {
    release();  // a throwing constructor runs no destructor
    throw;
  }
}

void GemmPlan::plan(GemmMath math, bool trans_a, bool trans_b) {
  const int64_t m = m_, n = n_, k = k_;
  const cudaDataType_t t = data_type(math);
  DDPSIM_CUBLAS_CHECK(cublasLtMatmulDescCreate(&desc_, compute_type(math), CUDA_R_32F));
  const cublasOperation_t op_first = trans_b ? CUBLAS_OP_T : CUBLAS_OP_N;
  const cublasOperation_t op_second = trans_a ? CUBLAS_OP_T : CUBLAS_OP_N;
  DDPSIM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &op_first,
                                                     sizeof op_first));
  DDPSIM_CUBLAS_CHECK(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &op_second,
                                                     sizeof op_second));
  // Layouts describe the stored (pre-op) column-major matrices.
  DDPSIM_CUBLAS_CHECK(
      cublasLtMatrixLayoutCreate(&first_, t, trans_b ? k : n, trans_b ? n : k, trans_b ? k : n));
  DDPSIM_CUBLAS_CHECK(
      cublasLtMatrixLayoutCreate(&second_, t, trans_a ? m : k, trans_a ? k : m, trans_a ? m : k));
  DDPSIM_CUBLAS_CHECK(cublasLtMatrixLayoutCreate(&out_, t, n, m, n));

  cublasLtMatmulPreference_t pref = nullptr;
  DDPSIM_CUBLAS_CHECK(cublasLtMatmulPreferenceCreate(&pref));
  const size_t ws = blas_.workspace_bytes();
  cublasLtMatmulHeuristicResult_t result{};
  int found = 0;
  try {
    DDPSIM_CUBLAS_CHECK(cublasLtMatmulPreferenceSetAttribute(
        pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws));
    DDPSIM_CUBLAS_CHECK(cublasLtMatmulAlgoGetHeuristic(blas_.lt(), desc_, first_, second_, out_,
                                                       out_, pref, 1, &result, &found));
  } catch (...) {
    cublasLtMatmulPreferenceDestroy(pref);
    throw;
  }
  cublasLtMatmulPreferenceDestroy(pref);
  if (found == 0)
    raise_gpu_error("cuBLASLt", "cublasLtMatmulAlgoGetHeuristic", __FILE__, __LINE__, 0,
                    "no algorithm for this GEMM", false);
  algo_ = result.algo;
}

GemmPlan::~GemmPlan() { release(); }

void GemmPlan::release() {
  if (out_ != nullptr) cublasLtMatrixLayoutDestroy(out_);
  if (second_ != nullptr) cublasLtMatrixLayoutDestroy(second_);
  if (first_ != nullptr) cublasLtMatrixLayoutDestroy(first_);
  if (desc_ != nullptr) cublasLtMatmulDescDestroy(desc_);
  out_ = second_ = first_ = nullptr;
  desc_ = nullptr;
}

void GemmPlan::run(float alpha, const void* a, const void* b, float beta, void* c) {
  DDPSIM_CUBLAS_CHECK(cublasLtMatmul(blas_.lt(), desc_, &alpha, b, first_, a, second_, &beta, c,
                                     out_, c, out_, &algo_, blas_.workspace(),
                                     blas_.workspace_bytes(), blas_.stream()));
}

}  // namespace ddpsim::kernels
