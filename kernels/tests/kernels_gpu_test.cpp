// Every GPU kernel against its CPU double reference on small random inputs, per precision.
// Inputs are rounded to the kernel's dtype before the reference sees them, so the tolerance
// only covers the kernel's own arithmetic; outputs are poisoned (NaN) before each run, so an
// unwritten element fails. Without a CUDA device every test skips with the reason.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "kernels/check.h"
#include "kernels/cudnn_ops.h"
#include "kernels/device_buffer.h"
#include "kernels/device_probe.h"
#include "kernels/elementwise.h"
#include "kernels/embedding.h"
#include "kernels/gemm.h"
#include "kernels/optimizer.h"
#include "kernels/reference/batch_norm.h"
#include "kernels/reference/conv2d.h"
#include "kernels/reference/elementwise.h"
#include "kernels/reference/embedding.h"
#include "kernels/reference/gemm.h"
#include "kernels/reference/optimizer.h"
#include "kernels/reference/pooling.h"
#include "kernels/reference/softmax.h"
#include "kernels/row_ops.h"

namespace ddpsim::kernels {
namespace {

using Vec = std::vector<double>;

Vec random_vec(size_t n, uint32_t seed, double lo = -1, double hi = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Vec v(n);
  for (double& x : v) x = dist(gen);
  return v;
}

// A device array of `dtype` holding `values` rounded to that dtype.
DeviceBuffer upload(const Vec& values, DType dtype) {
  std::vector<float> f(values.begin(), values.end());
  DeviceBuffer staging(f.size() * 4), out(f.size() * dtype_size(dtype));
  staging.upload(f.data(), f.size() * 4);
  cast(DType::kF32, staging.get(), dtype, out.get(), static_cast<int64_t>(f.size()), nullptr);
  DDPSIM_CUDA_CHECK(cudaDeviceSynchronize());
  return out;
}

Vec download(const DeviceBuffer& buffer, DType dtype, size_t n) {
  DeviceBuffer staging(n * 4);
  cast(dtype, buffer.get(), DType::kF32, staging.get(), static_cast<int64_t>(n), nullptr);
  DDPSIM_CUDA_CHECK(cudaDeviceSynchronize());
  std::vector<float> f(n);
  staging.download(f.data(), n * 4);
  return Vec(f.begin(), f.end());
}

// `values` as the kernel sees them after rounding to dtype.
Vec rounded(const Vec& values, DType dtype) {
  return download(upload(values, dtype), dtype, values.size());
}

DeviceBuffer poisoned(size_t bytes) {
  DeviceBuffer b(bytes);
  b.poison();
  return b;
}

DeviceBuffer upload_f32(const Vec& values) { return upload(values, DType::kF32); }

Vec download_f32(const DeviceBuffer& b, size_t n) { return download(b, DType::kF32, n); }

// Relative tolerance of one rounding of a result to dtype, with margin for float arithmetic.
double tolerance(DType dtype) {
  switch (dtype) {
    case DType::kF32:
      return 2e-5;
    case DType::kF16:
      return 2e-3;  // 10-bit mantissa: 2^-11 = 4.9e-4 per rounding
    case DType::kBF16:
      return 1.6e-2;  // 7-bit mantissa: 2^-8 = 3.9e-3 per rounding
  }
  return 0;
}

// |got - want| <= tol * (|want| + scale) for every element; scale sets the absolute floor.
void expect_close(const Vec& got, const Vec& want, double tol, double scale,
                  const std::string& what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const bool ok = std::abs(got[i] - want[i]) <= tol * (std::abs(want[i]) + scale);
    if (!ok && reported++ < 5)
      ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << ", want " << want[i] << " (tol "
                    << tol << ")";
  }
}

class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (cuda_device_count(&reason) == 0) GTEST_SKIP() << reason;
  }
};

class GpuDTypeTest : public GpuTest, public ::testing::WithParamInterface<DType> {};

std::string dtype_param_name(const ::testing::TestParamInfo<DType>& info) {
  return dtype_name(info.param);
}

// ---------------------------------------------------------------- element-wise

TEST_P(GpuDTypeTest, ReluAndGeluForwardAndBackward) {
  const DType t = GetParam();
  const size_t n = 10007;  // not a multiple of the block
  const Vec x = rounded(random_vec(n, 1, -4, 4), t), dy = rounded(random_vec(n, 2), t);
  DeviceBuffer dx_in = upload(x, t), ddy = upload(dy, t);
  DeviceBuffer y = poisoned(n * dtype_size(t)), dx = poisoned(n * dtype_size(t));
  relu_fwd(t, dx_in.get(), y.get(), n, nullptr);
  expect_close(download(y, t, n), ref::relu_fwd(x), 0, 0, "relu_fwd");
  relu_bwd(t, dx_in.get(), ddy.get(), dx.get(), n, nullptr);
  expect_close(download(dx, t, n), ref::relu_bwd(x, dy), 0, 0, "relu_bwd");
  y.poison();
  dx.poison();
  gelu_fwd(t, dx_in.get(), y.get(), n, nullptr);
  expect_close(download(y, t, n), ref::gelu_fwd(x), tolerance(t), 1e-3, "gelu_fwd");
  gelu_bwd(t, dx_in.get(), ddy.get(), dx.get(), n, nullptr);
  expect_close(download(dx, t, n), ref::gelu_bwd(x, dy), tolerance(t), 1e-3, "gelu_bwd");
}

TEST_P(GpuDTypeTest, DropoutKeepsAboutOneMinusPAndScalesTheKept) {
  const DType t = GetParam();
  const size_t n = 100000;
  const double p = 0.1;
  const Vec x = rounded(random_vec(n, 3, 0.5, 2), t), dy = rounded(random_vec(n, 4), t);
  DeviceBuffer dxin = upload(x, t), ddy = upload(dy, t);
  DeviceBuffer y = poisoned(n * dtype_size(t)), dx = poisoned(n * dtype_size(t)),
               keep = poisoned(n);
  dropout_fwd(t, dxin.get(), y.get(), keep.as<uint8_t>(), n, p, 42, nullptr);
  dropout_bwd(t, ddy.get(), keep.as<uint8_t>(), dx.get(), n, p, nullptr);
  std::vector<uint8_t> mask(n);
  keep.download(mask.data(), n);
  size_t kept = 0;
  for (uint8_t m : mask) {
    ASSERT_LE(m, 1);
    kept += m;
  }
  // Binomial(1e5, 0.9): standard deviation 95; 5 sigma.
  EXPECT_NEAR(static_cast<double>(kept), 0.9 * n, 475);
  expect_close(download(y, t, n), ref::dropout_fwd(x, mask, p), tolerance(t), 0, "dropout_fwd");
  expect_close(download(dx, t, n), ref::dropout_fwd(dy, mask, p), tolerance(t), 1e-3,
               "dropout_bwd");
}

TEST_P(GpuDTypeTest, AddMatchesReference) {
  const DType t = GetParam();
  const size_t n = 4099;
  const Vec a = rounded(random_vec(n, 5), t), b = rounded(random_vec(n, 6), t);
  DeviceBuffer da = upload(a, t), db = upload(b, t), y = poisoned(n * dtype_size(t));
  add(t, da.get(), db.get(), y.get(), n, nullptr);
  expect_close(download(y, t, n), ref::add(a, b), tolerance(t), 1e-3, "add");
}

// ---------------------------------------------------------------- row-wise

TEST_P(GpuDTypeTest, SoftmaxForwardAndBackward) {
  const DType t = GetParam();
  const int64_t rows = 7, cols = 1000;  // cols > block: every thread loops
  const size_t n = rows * cols;
  const Vec x = rounded(random_vec(n, 7, -6, 6), t), dy = rounded(random_vec(n, 8), t);
  DeviceBuffer dxin = upload(x, t), ddy = upload(dy, t);
  DeviceBuffer y = poisoned(n * dtype_size(t)), dx = poisoned(n * dtype_size(t));
  softmax_fwd(t, dxin.get(), y.get(), rows, cols, nullptr);
  const Vec want = ref::softmax_fwd(x, rows, cols);
  expect_close(download(y, t, n), want, tolerance(t), 1e-4, "softmax_fwd");
  // Backward from the kernel's own (rounded) output, as training does.
  const Vec y_used = download(y, t, n);
  softmax_bwd(t, y.get(), ddy.get(), dx.get(), rows, cols, nullptr);
  expect_close(download(dx, t, n), ref::softmax_bwd(y_used, dy, rows, cols), 4 * tolerance(t), 1e-3,
               "softmax_bwd");
}

TEST_P(GpuDTypeTest, LayerNormForwardAndBackward) {
  const DType t = GetParam();
  const int64_t rows = 77,
                cols = 768;  // 77: three chunks of the parameter gradients, the last partial
  const size_t n = rows * cols;
  const float eps = 1e-5f;
  const Vec x = rounded(random_vec(n, 9, -2, 3), t), dy = rounded(random_vec(n, 10), t);
  const Vec gamma = rounded(random_vec(cols, 11, 0.5, 1.5), DType::kF32);
  const Vec beta = rounded(random_vec(cols, 12), DType::kF32);
  DeviceBuffer dxin = upload(x, t), ddy = upload(dy, t), dg = upload_f32(gamma),
               db = upload_f32(beta);
  DeviceBuffer y = poisoned(n * dtype_size(t)), mean = poisoned(rows * 4),
               rstd = poisoned(rows * 4), dx = poisoned(n * dtype_size(t)),
               dgamma = poisoned(cols * 4), dbeta = poisoned(cols * 4);
  layer_norm_fwd(t, dxin.get(), dg.as<float>(), db.as<float>(), y.get(), mean.as<float>(),
                 rstd.as<float>(), rows, cols, eps, nullptr);
  const ref::LayerNormForward f = ref::layer_norm_fwd(x, gamma, beta, rows, cols, eps);
  expect_close(download(y, t, n), f.y, 2 * tolerance(t), 1.0, "layer_norm_fwd.y");
  expect_close(download_f32(mean, rows), f.mean, 1e-5, 1.0, "layer_norm_fwd.mean");
  expect_close(download_f32(rstd, rows), f.rstd, 1e-5, 0, "layer_norm_fwd.rstd");
  layer_norm_bwd(t, dxin.get(), dg.as<float>(), ddy.get(), mean.as<float>(), rstd.as<float>(),
                 dx.get(), dgamma.as<float>(), dbeta.as<float>(), rows, cols, nullptr);
  const ref::LayerNormBackward b = ref::layer_norm_bwd(x, gamma, dy, f.mean, f.rstd, rows, cols);
  expect_close(download(dx, t, n), b.dx, 4 * tolerance(t), 1.0, "layer_norm_bwd.dx");
  expect_close(download_f32(dgamma, cols), b.dgamma, 1e-4, 1.0, "layer_norm_bwd.dgamma");
  expect_close(download_f32(dbeta, cols), b.dbeta, 1e-4, 1.0, "layer_norm_bwd.dbeta");
}

TEST_P(GpuDTypeTest, CrossEntropyForwardAndBackward) {
  const DType t = GetParam();
  const int64_t rows = 8, classes = 1000;
  const size_t n = rows * classes;
  const Vec logits = rounded(random_vec(n, 13, -5, 5), t);
  std::vector<int32_t> labels = {0, 999, 17, 500, 3, 3, 998, 250};
  DeviceBuffer dl = upload(logits, t), dlab(rows * 4), loss = poisoned(rows * 4),
               dlogits = poisoned(n * dtype_size(t));
  dlab.upload(labels.data(), rows * 4);
  cross_entropy_fwd(t, dl.get(), dlab.as<int32_t>(), loss.as<float>(), rows, classes, nullptr);
  const Vec per_row = download_f32(loss, rows);
  double mean = 0;
  for (double v : per_row) mean += v / rows;
  EXPECT_NEAR(mean, ref::cross_entropy_fwd(logits, labels, rows, classes), 1e-5 * mean);
  cross_entropy_bwd(t, dl.get(), dlab.as<int32_t>(), dlogits.get(), rows, classes, nullptr);
  expect_close(download(dlogits, t, n), ref::cross_entropy_bwd(logits, labels, rows, classes),
               tolerance(t), 1e-4, "cross_entropy_bwd");
}

TEST_P(GpuDTypeTest, EmbeddingGatherAndScatterAddWithRepeatedIds) {
  const DType t = GetParam();
  const int64_t vocab = 50, dim = 64, tokens = 300;  // 300 tokens over 50 ids: many repeats
  const Vec table = rounded(random_vec(vocab * dim, 14), t);
  const Vec dout = rounded(random_vec(tokens * dim, 15), t);
  std::vector<int32_t> ids(tokens);
  for (int64_t i = 0; i < tokens; ++i) ids[i] = static_cast<int32_t>((i * 7 + i / 13) % vocab);
  DeviceBuffer dtable = upload(table, t), ddout = upload(dout, t), dids(tokens * 4);
  dids.upload(ids.data(), tokens * 4);
  DeviceBuffer out = poisoned(tokens * dim * dtype_size(t)), grad = poisoned(vocab * dim * 4);
  embedding_fwd(t, dtable.get(), dids.as<int32_t>(), out.get(), tokens, dim, nullptr);
  expect_close(download(out, t, tokens * dim), ref::embedding_fwd(table, ids, dim), 0, 0,
               "embedding_fwd");
  embedding_bwd(t, ddout.get(), dids.as<int32_t>(), grad.as<float>(), tokens, vocab, dim, nullptr);
  expect_close(download_f32(grad, vocab * dim), ref::embedding_bwd(dout, ids, vocab, dim), 1e-5,
               1.0, "embedding_bwd");
}

INSTANTIATE_TEST_SUITE_P(AllDTypes, GpuDTypeTest,
                         ::testing::Values(DType::kF32, DType::kF16, DType::kBF16),
                         dtype_param_name);

// ---------------------------------------------------------------- optimizers (fp32)

TEST_F(GpuTest, SgdMomentumThreeStepsMatchReference) {
  const size_t n = 5000;
  Vec w = random_vec(n, 16), buf(n, 0.0);
  DeviceBuffer dw = upload_f32(w), dbuf = poisoned(n * 4);
  const ref::SgdMomentum h{0.05, 0.9, 1e-4};
  for (int step = 0; step < 3; ++step) {
    const Vec g = rounded(random_vec(n, 17 + step), DType::kF32);
    DeviceBuffer dg = upload_f32(g);
    sgd_momentum_step(dw.as<float>(), dg.as<float>(), dbuf.as<float>(), n, step == 0,
                      {0.05f, 0.9f, 1e-4f}, nullptr);
    ref::sgd_momentum_step(w, g, buf, step == 0, h);
  }
  expect_close(download_f32(dw, n), w, 1e-5, 1.0, "sgd.w");
  expect_close(download_f32(dbuf, n), buf, 1e-5, 1.0, "sgd.buf");
}

TEST_F(GpuTest, AdamThreeStepsMatchReference) {
  const size_t n = 5000;
  Vec w = random_vec(n, 20), m(n, 0.0), v(n, 0.0);
  DeviceBuffer dw = upload_f32(w), dm(n * 4), dv(n * 4);
  dm.zero();
  dv.zero();
  const ref::Adam h{1e-3, 0.9, 0.999, 1e-8, 0.01};
  for (int step = 1; step <= 3; ++step) {
    const Vec g = rounded(random_vec(n, 21 + step), DType::kF32);
    DeviceBuffer dg = upload_f32(g);
    adam_step(dw.as<float>(), dg.as<float>(), dm.as<float>(), dv.as<float>(), n, step,
              {1e-3f, 0.9f, 0.999f, 1e-8f, 0.01f}, nullptr);
    ref::adam_step(w, g, m, v, step, h);
  }
  expect_close(download_f32(dw, n), w, 1e-6, 1.0, "adam.w");
  expect_close(download_f32(dm, n), m, 1e-5, 1e-3, "adam.m");
}

// ---------------------------------------------------------------- GEMM

class GpuGemmTest : public GpuTest, public ::testing::WithParamInterface<GemmMath> {};

// |C - C_ref| <= tol * sum_p |a_ip| |b_pj|: the error bound of a dot product in that precision.
void expect_gemm_close(const Vec& got, const Vec& want, const Vec& abs_want, double tol,
                       const std::string& what) {
  ASSERT_EQ(got.size(), want.size());
  int reported = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    if (std::abs(got[i] - want[i]) > tol * abs_want[i] + 1e-30 && reported++ < 5)
      ADD_FAILURE() << what << "[" << i << "]: got " << got[i] << ", want " << want[i];
  }
}

double gemm_tolerance(GemmMath math) {
  switch (math) {
    case GemmMath::kFp32:
      return 1e-5;
    case GemmMath::kTf32:
      return 2e-3;  // inputs rounded to a 10-bit mantissa inside the tensor core
    case GemmMath::kFp16:
      return 2e-3;  // fp32 accumulation, fp16 output
    case GemmMath::kBf16:
      return 1.2e-2;
  }
  return 0;
}

TEST_P(GpuGemmTest, EveryTransposeMatchesReference) {
  const GemmMath math = GetParam();
  const DType t = gemm_dtype(math);
  const int64_t m = 33, n = 65, k = 47;
  cudaStream_t stream = nullptr;
  Blas blas(stream);
  for (int ta = 0; ta < 2; ++ta) {
    for (int tb = 0; tb < 2; ++tb) {
      const Vec a = rounded(random_vec(m * k, 30 + ta), t),
                b = rounded(random_vec(k * n, 40 + tb), t);
      Vec c_init = rounded(random_vec(m * n, 50), t);
      Vec want = c_init, abs_want(m * n);
      ref::gemm(ta, tb, m, n, k, 1.5, a, b, 0.5, want);
      Vec abs_a(a.size()), abs_b(b.size());
      for (size_t i = 0; i < a.size(); ++i) abs_a[i] = std::abs(a[i]);
      for (size_t i = 0; i < b.size(); ++i) abs_b[i] = std::abs(b[i]);
      ref::gemm(ta, tb, m, n, k, 1.5, abs_a, abs_b, 0.0, abs_want);
      for (size_t i = 0; i < abs_want.size(); ++i) abs_want[i] += 0.5 * std::abs(c_init[i]);
      DeviceBuffer da = upload(a, t), db = upload(b, t), dc = upload(c_init, t);
      GemmPlan plan(blas, math, ta, tb, m, n, k);
      plan.run(1.5f, da.get(), db.get(), 0.5f, dc.get());
      expect_gemm_close(
          download(dc, t, m * n), want, abs_want, gemm_tolerance(math),
          std::string("gemm ") + gemm_math_name(math) + (ta ? " T" : " N") + (tb ? "T" : "N"));
    }
  }
}

TEST_P(GpuGemmTest, StridedBatchedMatchesPerBatchReference) {
  const GemmMath math = GetParam();
  const DType t = gemm_dtype(math);
  const int64_t m = 16, n = 24, k = 32, batch = 5;  // attention-like: Q K^T per head
  Blas blas(nullptr);
  const Vec a = rounded(random_vec(batch * m * k, 60), t),
            b = rounded(random_vec(batch * n * k, 61), t);
  DeviceBuffer da = upload(a, t), db = upload(b, t), dc = poisoned(batch * m * n * dtype_size(t));
  blas.gemm_strided_batched(math, false, true, m, n, k, 1.f, da.get(), m * k, db.get(), n * k, 0.f,
                            dc.get(), m * n, batch);
  const Vec got = download(dc, t, batch * m * n);
  for (int64_t i = 0; i < batch; ++i) {
    const Vec ai(a.begin() + i * m * k, a.begin() + (i + 1) * m * k);
    const Vec bi(b.begin() + i * n * k, b.begin() + (i + 1) * n * k);
    Vec want(m * n), abs_want(m * n);
    ref::gemm(false, true, m, n, k, 1.0, ai, bi, 0.0, want);
    Vec abs_a(ai.size()), abs_b(bi.size());
    for (size_t j = 0; j < ai.size(); ++j) abs_a[j] = std::abs(ai[j]);
    for (size_t j = 0; j < bi.size(); ++j) abs_b[j] = std::abs(bi[j]);
    ref::gemm(false, true, m, n, k, 1.0, abs_a, abs_b, 0.0, abs_want);
    expect_gemm_close(Vec(got.begin() + i * m * n, got.begin() + (i + 1) * m * n), want, abs_want,
                      gemm_tolerance(math), "batched gemm " + std::to_string(i));
  }
}

INSTANTIATE_TEST_SUITE_P(AllMath, GpuGemmTest,
                         ::testing::Values(GemmMath::kFp32, GemmMath::kTf32, GemmMath::kFp16,
                                           GemmMath::kBf16),
                         [](const ::testing::TestParamInfo<GemmMath>& info) {
                           return std::string(gemm_math_name(info.param));
                         });

// ---------------------------------------------------------------- cuDNN layers

TEST_P(GpuDTypeTest, ConvolutionForwardBackwardDataAndFilter) {
  const DType t = GetParam();
  ConvParams p;
  p.n = 2;
  p.c = 8;
  p.h = 9;
  p.w = 11;
  p.k = 12;
  p.r = 3;
  p.s = 3;
  p.stride_h = 2;
  p.stride_w = 1;
  p.pad_h = p.pad_w = 1;
  p.groups = 2;
  ref::ConvShape s{p.n, p.c,        p.h,        p.w,     p.k,     p.r,
                   p.s, p.stride_h, p.stride_w, p.pad_h, p.pad_w, p.groups};
  Dnn dnn(nullptr);
  Conv2d conv(dnn, p, t, /*tf32=*/false);
  ASSERT_EQ(conv.out_h(), s.out_h());
  ASSERT_EQ(conv.out_w(), s.out_w());
  const Vec x = rounded(random_vec(s.input_elems(), 70), t);
  const Vec w = rounded(random_vec(s.filter_elems(), 71), t);
  const Vec dy = rounded(random_vec(s.output_elems(), 72), t);
  DeviceBuffer dx_in = upload(x, t), dw_in = upload(w, t), ddy = upload(dy, t);
  const size_t e = dtype_size(t);
  DeviceBuffer y = poisoned(s.output_elems() * e), dx = poisoned(s.input_elems() * e),
               dw = poisoned(s.filter_elems() * e);
  conv.forward(dx_in.get(), dw_in.get(), y.get());
  conv.backward_data(ddy.get(), dw_in.get(), dx.get());
  conv.backward_filter(dx_in.get(), ddy.get(), dw.get());
  // Sums of 36 (forward, data) to 100 (filter) products of values in [-1, 1]: absolute floor
  // of a few units.
  // fp32: Winograd/FFT algorithms are less exact than a plain dot product.
  const double tol = t == DType::kF32 ? 1e-4 : 4 * tolerance(t);
  expect_close(download(y, t, s.output_elems()), ref::conv2d_fwd(x, w, s), tol, 3.0, "conv fwd");
  expect_close(download(dx, t, s.input_elems()), ref::conv2d_bwd_data(dy, w, s), tol, 3.0,
               "conv bwd data");
  expect_close(download(dw, t, s.filter_elems()), ref::conv2d_bwd_filter(x, dy, s), tol, 5.0,
               "conv bwd filter");
}

TEST_P(GpuDTypeTest, BatchNormTrainingForwardAndBackward) {
  const DType t = GetParam();
  const int64_t n = 4, c = 3, h = 5, w = 6, hw = h * w;
  const double eps = 1e-5;
  const Vec x = rounded(random_vec(n * c * hw, 80, -1, 3), t),
            dy = rounded(random_vec(n * c * hw, 81), t);
  const Vec gamma = {1.5, 0.5, 1.0}, beta = {0.1, -0.2, 0.0};
  Dnn dnn(nullptr);
  BatchNorm2d bn(dnn, n, c, h, w, t);
  DeviceBuffer dxin = upload(x, t), ddy = upload(dy, t), dg = upload_f32(gamma),
               db = upload_f32(beta), rmean(c * 4), rvar(c * 4);
  rmean.zero();
  rvar.zero();
  const size_t e = dtype_size(t);
  DeviceBuffer y = poisoned(x.size() * e), dx = poisoned(x.size() * e), smean = poisoned(c * 4),
               srstd = poisoned(c * 4), dgamma = poisoned(c * 4), dbeta = poisoned(c * 4);
  try {
    bn.forward_training(dxin.get(), y.get(), dg.as<float>(), db.as<float>(), rmean.as<float>(),
                        rvar.as<float>(), smean.as<float>(), srstd.as<float>(), eps);
  } catch (const GpuError& err) {
    const std::string what = err.what();
    if (t == DType::kBF16 && (what.find("NOT_SUPPORTED") != std::string::npos ||
                              what.find("BAD_PARAM") != std::string::npos))
      GTEST_SKIP() << "this cuDNN has no bf16 batch norm: " << err.what();
    throw;
  }
  bn.backward(dxin.get(), ddy.get(), dx.get(), dg.as<float>(), dgamma.as<float>(),
              dbeta.as<float>(), smean.as<float>(), srstd.as<float>(), eps);
  const ref::BatchNormForward f = ref::batch_norm_fwd(x, gamma, beta, n, c, hw, eps);
  const ref::BatchNormBackward b = ref::batch_norm_bwd(x, gamma, dy, f.mean, f.rstd, n, c, hw);
  expect_close(download(y, t, x.size()), f.y, 2 * tolerance(t), 1.0, "bn fwd");
  expect_close(download_f32(smean, c), f.mean, 1e-5, 1.0, "bn save_mean");
  expect_close(download_f32(srstd, c), f.rstd, 1e-4, 0, "bn save_rstd");
  expect_close(download(dx, t, x.size()), b.dx, 4 * tolerance(t), 1.0, "bn dx");
  expect_close(download_f32(dgamma, c), b.dgamma, 1e-4, 1.0, "bn dgamma");
  expect_close(download_f32(dbeta, c), b.dbeta, 1e-4, 1.0, "bn dbeta");
}

TEST_P(GpuDTypeTest, MaxAndAveragePoolingForwardAndBackward) {
  const DType t = GetParam();
  const ref::PoolShape s{2, 3, 9, 9, 3, 2, 1};  // ResNet's stem pool on a small image
  const size_t in = s.n * s.c * s.h * s.w, out = s.output_elems();
  // Distinct multiples of 1/64 (exact in bf16 too): no ties, so "the" maximum is unambiguous.
  std::vector<int> order(in);
  for (size_t i = 0; i < in; ++i) order[i] = static_cast<int>(i);
  std::shuffle(order.begin(), order.end(), std::mt19937(90));
  Vec x(in);
  for (size_t i = 0; i < in; ++i) x[i] = (order[i] - static_cast<double>(in) / 2) / 64;
  ASSERT_EQ(rounded(x, t), x);
  const Vec dy = rounded(random_vec(out, 91), t);
  Dnn dnn(nullptr);
  const size_t e = dtype_size(t);
  DeviceBuffer dxin = upload(x, t), ddy = upload(dy, t);
  for (PoolMode mode : {PoolMode::kMax, PoolMode::kAverage}) {
    Pool2d pool(dnn, s.n, s.c, s.h, s.w, s.window, s.stride, s.pad, mode, t);
    ASSERT_EQ(pool.output_elems(), static_cast<int64_t>(out));
    DeviceBuffer y = poisoned(out * e), dx = poisoned(in * e);
    pool.forward(dxin.get(), y.get());
    pool.backward(y.get(), ddy.get(), dxin.get(), dx.get());
    const bool max = mode == PoolMode::kMax;
    const Vec want_y = max ? ref::max_pool_fwd(x, s) : ref::avg_pool_fwd(x, s);
    const Vec want_dx = max ? ref::max_pool_bwd(x, dy, s) : ref::avg_pool_bwd(dy, s);
    expect_close(download(y, t, out), want_y, tolerance(t), 1e-2, max ? "max fwd" : "avg fwd");
    expect_close(download(dx, t, in), want_dx, 2 * tolerance(t), 1e-2, max ? "max bwd" : "avg bwd");
  }
}

// ---------------------------------------------------------------- error reporting

TEST(GpuErrors, MessageNamesLibraryCallLocationAndLayer) {
  // Pure host code: runs without a GPU.
  ScopedLayer layer("layer1.0.conv1 backward");
  try {
    raise_gpu_error("cuDNN", "cudnnConvolutionBackwardData(...)", "kernels/cudnn_ops.cpp", 42, 3000,
                    "CUDNN_STATUS_NOT_SUPPORTED", false);
    FAIL();
  } catch (const GpuError& e) {
    const std::string what = e.what();
    EXPECT_NE(what.find("cuDNN error 3000 (CUDNN_STATUS_NOT_SUPPORTED)"), std::string::npos);
    EXPECT_NE(what.find("cudnnConvolutionBackwardData(...) at kernels/cudnn_ops.cpp:42"),
              std::string::npos);
    EXPECT_NE(what.find("layer layer1.0.conv1 backward"), std::string::npos) << what;
    EXPECT_FALSE(e.out_of_memory());
  }
}

TEST_F(GpuTest, AnImpossibleAllocationIsAnOutOfMemoryErrorWithItsSize) {
  ScopedLayer layer("huge");
  try {
    DeviceBuffer b(size_t{1} << 52);  // 4 PiB
    FAIL();
  } catch (const GpuError& e) {
    EXPECT_TRUE(e.out_of_memory()) << e.what();
    EXPECT_NE(std::string(e.what()).find("cudaMalloc(4096.00 TiB)"), std::string::npos) << e.what();
  }
  DeviceBuffer fine(1024);  // the failure left the device usable
  fine.poison();
  DDPSIM_CUDA_CHECK(cudaDeviceSynchronize());
}

}  // namespace
}  // namespace ddpsim::kernels
