// The CPU double-precision references the GPU kernels are checked against (kernels/reference/):
// each against a hand-worked case, an identity it must satisfy, or finite differences.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <numeric>
#include <random>

#include "kernels/reference/batch_norm.h"
#include "kernels/reference/conv2d.h"
#include "kernels/reference/elementwise.h"
#include "kernels/reference/embedding.h"
#include "kernels/reference/gemm.h"
#include "kernels/reference/optimizer.h"
#include "kernels/reference/pooling.h"
#include "kernels/reference/softmax.h"

namespace ddpsim::ref {
namespace {

Vec random_vec(size_t n, uint32_t seed, double lo = -1, double hi = 1) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  Vec v(n);
  for (double& x : v) x = dist(gen);
  return v;
}

double dot(const Vec& a, const Vec& b) {
  return std::inner_product(a.begin(), a.end(), b.begin(), 0.0);
}

// Central-difference gradient of the scalar f at x.
Vec numeric_gradient(const std::function<double(const Vec&)>& f, Vec x, double h = 1e-6) {
  Vec g(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double keep = x[i];
    x[i] = keep + h;
    const double up = f(x);
    x[i] = keep - h;
    const double down = f(x);
    x[i] = keep;
    g[i] = (up - down) / (2 * h);
  }
  return g;
}

void expect_near_all(const Vec& a, const Vec& b, double tol) {
  ASSERT_EQ(a.size(), b.size());
  for (size_t i = 0; i < a.size(); ++i) EXPECT_NEAR(a[i], b[i], tol) << "index " << i;
}

// ---------------------------------------------------------------- element-wise

TEST(ElementwiseReference, ReluAndItsGradient) {
  const Vec x = {-2, -0.5, 0, 0.5, 3};
  expect_near_all(relu_fwd(x), {0, 0, 0, 0.5, 3}, 0);
  expect_near_all(relu_bwd(x, {1, 2, 3, 4, 5}), {0, 0, 0, 4, 5}, 0);
}

TEST(ElementwiseReference, GeluMatchesKnownValuesAndFiniteDifferences) {
  // x * Phi(x): Phi(1) = 0.8413447460685429, Phi(-1) = 0.15865525393145707.
  const Vec y = gelu_fwd({0, 1, -1, 3});
  EXPECT_EQ(y[0], 0);
  EXPECT_NEAR(y[1], 0.8413447460685429, 1e-15);
  EXPECT_NEAR(y[2], -0.15865525393145707, 1e-15);
  EXPECT_NEAR(y[3], 3 * 0.9986501019683699, 1e-14);
  const Vec x = random_vec(16, 1, -3, 3), dy = random_vec(16, 2);
  const Vec numeric = numeric_gradient([&](const Vec& v) { return dot(gelu_fwd(v), dy); }, x);
  expect_near_all(gelu_bwd(x, dy), numeric, 1e-8);
}

TEST(ElementwiseReference, DropoutKeepsExpectationAndAddAdds) {
  const Vec y = dropout_fwd({1, 2, 3, 4}, {1, 0, 1, 0}, 0.5);
  expect_near_all(y, {2, 0, 6, 0}, 0);
  expect_near_all(add({1, 2}, {10, 20}), {11, 22}, 0);
}

// ---------------------------------------------------------------- softmax, layer norm

TEST(SoftmaxReference, RowsSumToOneAndShiftDoesNotMatter) {
  const int64_t rows = 4, cols = 7;
  Vec x = random_vec(rows * cols, 3, -5, 5);
  const Vec y = softmax_fwd(x, rows, cols);
  for (int64_t r = 0; r < rows; ++r) {
    double sum = 0;
    for (int64_t c = 0; c < cols; ++c) {
      EXPECT_GT(y[r * cols + c], 0);
      sum += y[r * cols + c];
    }
    EXPECT_NEAR(sum, 1.0, 1e-15);
  }
  // exp(1000) overflows without the max shift; adding 1000 rounds x by up to 1.1e-13.
  for (double& v : x) v += 1000;
  expect_near_all(softmax_fwd(x, rows, cols), y, 1e-12);
}

TEST(SoftmaxReference, BackwardMatchesFiniteDifferences) {
  const int64_t rows = 3, cols = 5;
  const Vec x = random_vec(rows * cols, 4, -2, 2), dy = random_vec(rows * cols, 5);
  const Vec numeric =
      numeric_gradient([&](const Vec& v) { return dot(softmax_fwd(v, rows, cols), dy); }, x);
  expect_near_all(softmax_bwd(softmax_fwd(x, rows, cols), dy, rows, cols), numeric, 1e-9);
}

TEST(LayerNormReference, NormalisedRowsHaveMeanZeroAndVarianceOne) {
  const int64_t rows = 5, cols = 64;
  const Vec x = random_vec(rows * cols, 6, -3, 7);
  const LayerNormForward f = layer_norm_fwd(x, Vec(cols, 1.0), Vec(cols, 0.0), rows, cols, 0.0);
  for (int64_t r = 0; r < rows; ++r) {
    double mean = 0, var = 0;
    for (int64_t c = 0; c < cols; ++c) mean += f.y[r * cols + c] / cols;
    for (int64_t c = 0; c < cols; ++c) var += std::pow(f.y[r * cols + c] - mean, 2) / cols;
    EXPECT_NEAR(mean, 0, 1e-14);
    EXPECT_NEAR(var, 1, 1e-12);
  }
  // gamma and beta scale and shift each column.
  const LayerNormForward g = layer_norm_fwd(x, Vec(cols, 2.0), Vec(cols, 0.5), rows, cols, 0.0);
  for (size_t i = 0; i < x.size(); ++i) EXPECT_NEAR(g.y[i], 2 * f.y[i] + 0.5, 1e-13);
}

TEST(LayerNormReference, BackwardMatchesFiniteDifferences) {
  const int64_t rows = 3, cols = 6;
  const double eps = 1e-5;
  const Vec x = random_vec(rows * cols, 7), gamma = random_vec(cols, 8, 0.5, 1.5),
            beta = random_vec(cols, 9), dy = random_vec(rows * cols, 10);
  const LayerNormForward f = layer_norm_fwd(x, gamma, beta, rows, cols, eps);
  const LayerNormBackward b = layer_norm_bwd(x, gamma, dy, f.mean, f.rstd, rows, cols);
  auto loss_x = [&](const Vec& v) {
    return dot(layer_norm_fwd(v, gamma, beta, rows, cols, eps).y, dy);
  };
  auto loss_g = [&](const Vec& v) {
    return dot(layer_norm_fwd(x, v, beta, rows, cols, eps).y, dy);
  };
  auto loss_b = [&](const Vec& v) {
    return dot(layer_norm_fwd(x, gamma, v, rows, cols, eps).y, dy);
  };
  expect_near_all(b.dx, numeric_gradient(loss_x, x), 1e-8);
  expect_near_all(b.dgamma, numeric_gradient(loss_g, gamma), 1e-8);
  expect_near_all(b.dbeta, numeric_gradient(loss_b, beta), 1e-8);
}

// ---------------------------------------------------------------- embedding, loss

TEST(EmbeddingReference, LookupAndRepeatedIdsAccumulateInBackward) {
  const Vec table = {0, 1, 10, 11, 20, 21};  // 3 rows x 2
  const std::vector<int32_t> ids = {2, 0, 2};
  expect_near_all(embedding_fwd(table, ids, 2), {20, 21, 0, 1, 20, 21}, 0);
  const Vec dtable = embedding_bwd({1, 2, 3, 4, 5, 6}, ids, 3, 2);
  expect_near_all(dtable, {3, 4, 0, 0, 1 + 5, 2 + 6}, 0);
}

TEST(CrossEntropyReference, UniformLogitsCostLogClassesAndGradientMatches) {
  const int64_t rows = 4, classes = 10;
  const std::vector<int32_t> labels = {0, 3, 9, 3};
  EXPECT_NEAR(cross_entropy_fwd(Vec(rows * classes, 0.7), labels, rows, classes), std::log(10.0),
              1e-14);
  const Vec logits = random_vec(rows * classes, 11, -3, 3);
  const Vec numeric = numeric_gradient(
      [&](const Vec& v) { return cross_entropy_fwd(v, labels, rows, classes); }, logits);
  expect_near_all(cross_entropy_bwd(logits, labels, rows, classes), numeric, 1e-9);
}

// ---------------------------------------------------------------- optimizers

TEST(OptimizerReference, SgdMomentumTwoStepsByHand) {
  Vec w = {1.0, -2.0}, buf(2, 0.0);
  const SgdMomentum h{0.1, 0.9, 0.01};
  // Step 1: g' = g + 0.01 w = (0.51, -0.02); buf = g'; w = (1 - 0.051, -2 + 0.002).
  sgd_momentum_step(w, {0.5, 0.0}, buf, true, h);
  EXPECT_NEAR(buf[0], 0.51, 1e-15);
  EXPECT_NEAR(w[0], 0.949, 1e-15);
  EXPECT_NEAR(w[1], -1.998, 1e-15);
  // Step 2: g' = 0.5 + 0.00949 = 0.50949; buf = 0.9 * 0.51 + 0.50949 = 0.96849.
  sgd_momentum_step(w, {0.5, 0.0}, buf, false, h);
  EXPECT_NEAR(buf[0], 0.96849, 1e-14);
  EXPECT_NEAR(w[0], 0.949 - 0.096849, 1e-14);
}

TEST(OptimizerReference, AdamFirstStepMovesEachWeightByLrTimesSignAndSecondByHand) {
  Vec w = {1.0, 1.0, 1.0}, m(3, 0.0), v(3, 0.0);
  const Adam h{0.01, 0.9, 0.999, 1e-8, 0.0};
  const Vec g = {0.3, -2.0, 1e-3};
  adam_step(w, g, m, v, 1, h);
  // Bias correction makes m_hat = g and v_hat = g^2: w -= lr * g / (|g| + eps).
  for (size_t i = 0; i < 3; ++i)
    EXPECT_NEAR(w[i], 1.0 - 0.01 * g[i] / (std::abs(g[i]) + 1e-8), 1e-15);
  // Step 2 with gradient 0.1 on weight 0: m = 0.9*0.03 + 0.01 = 0.037, v = 0.999*0.00009 +
  // 0.001*0.01 = 0.00009991; m_hat = 0.037/0.19, v_hat = 0.00009991/0.001999.
  const double w0 = w[0];
  adam_step(w, {0.1, 0, 0}, m, v, 2, h);
  const double expected =
      w0 - 0.01 * (0.037 / 0.19) / (std::sqrt(0.00009991 / (1 - 0.999 * 0.999)) + 1e-8);
  EXPECT_NEAR(m[0], 0.037, 1e-15);
  EXPECT_NEAR(w[0], expected, 1e-14);
}

// ---------------------------------------------------------------- GEMM

TEST(GemmReference, HandWorkedProductAndEveryTransposeAgree) {
  // [1 2; 3 4] * [5 6; 7 8] = [19 22; 43 50].
  Vec c(4, 0.0);
  gemm(false, false, 2, 2, 2, 1.0, {1, 2, 3, 4}, {5, 6, 7, 8}, 0.0, c);
  expect_near_all(c, {19, 22, 43, 50}, 0);
  // alpha and beta: C = 2 AB + C.
  gemm(false, false, 2, 2, 2, 2.0, {1, 2, 3, 4}, {5, 6, 7, 8}, 1.0, c);
  expect_near_all(c, {57, 66, 129, 150}, 0);

  const int64_t m = 3, n = 4, k = 5;
  const Vec a = random_vec(m * k, 12), b = random_vec(k * n, 13);
  Vec at(k * m), bt(n * k);
  for (int64_t i = 0; i < m; ++i)
    for (int64_t p = 0; p < k; ++p) at[p * m + i] = a[i * k + p];
  for (int64_t p = 0; p < k; ++p)
    for (int64_t j = 0; j < n; ++j) bt[j * k + p] = b[p * n + j];
  Vec nn(m * n), tn(m * n), nt(m * n), tt(m * n);
  gemm(false, false, m, n, k, 1, a, b, 0, nn);
  gemm(true, false, m, n, k, 1, at, b, 0, tn);
  gemm(false, true, m, n, k, 1, a, bt, 0, nt);
  gemm(true, true, m, n, k, 1, at, bt, 0, tt);
  expect_near_all(tn, nn, 1e-15);
  expect_near_all(nt, nn, 1e-15);
  expect_near_all(tt, nn, 1e-15);
}

// ---------------------------------------------------------------- convolution

TEST(Conv2dReference, HandWorkedThreeByThreeWithTwoByTwoFilter) {
  ConvShape s;
  s.h = s.w = 3;
  s.r = s.s = 2;
  const Vec x = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  const Vec w = {1, 0, 0, -1};  // top-left minus bottom-right
  expect_near_all(conv2d_fwd(x, w, s), {1 - 5, 2 - 6, 4 - 8, 5 - 9}, 0);
  // Padding 1, stride 2: outputs at (-1,-1), (-1,1), (1,-1), (1,1) of the padded input.
  s.pad_h = s.pad_w = 1;
  s.stride_h = s.stride_w = 2;
  expect_near_all(conv2d_fwd(x, w, s), {-1, -3, -7, 5 - 9}, 0);
}

TEST(Conv2dReference, BackwardPassesAreTheAdjointsOfTheForward) {
  // <conv(x, w), dy> = <x, bwd_data(dy, w)> = <w, bwd_filter(x, dy)>, with stride, padding,
  // a non-square filter and groups.
  ConvShape s;
  s.n = 2;
  s.c = 4;
  s.h = 7;
  s.w = 6;
  s.k = 6;
  s.r = 3;
  s.s = 2;
  s.stride_h = 2;
  s.stride_w = 1;
  s.pad_h = 1;
  s.pad_w = 1;
  s.groups = 2;
  const Vec x = random_vec(s.input_elems(), 14), w = random_vec(s.filter_elems(), 15),
            dy = random_vec(s.output_elems(), 16);
  const double lhs = dot(conv2d_fwd(x, w, s), dy);
  EXPECT_NEAR(dot(x, conv2d_bwd_data(dy, w, s)), lhs, 1e-12);
  EXPECT_NEAR(dot(w, conv2d_bwd_filter(x, dy, s)), lhs, 1e-12);
  EXPECT_EQ(s.out_h(), 4);
  EXPECT_EQ(s.out_w(), 7);
}

// ---------------------------------------------------------------- batch norm, pooling

TEST(BatchNormReference, ChannelsAreNormalisedAndBackwardMatchesFiniteDifferences) {
  const int64_t n = 3, c = 2, hw = 5;
  const double eps = 1e-5;
  const Vec x = random_vec(n * c * hw, 17, -2, 4), gamma = {1.5, 0.5}, beta = {0.1, -0.2},
            dy = random_vec(n * c * hw, 18);
  const BatchNormForward unit = batch_norm_fwd(x, {1, 1}, {0, 0}, n, c, hw, 0.0);
  for (int64_t ch = 0; ch < c; ++ch) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < hw; ++j) mean += unit.y[(i * c + ch) * hw + j] / (n * hw);
    for (int64_t i = 0; i < n; ++i)
      for (int64_t j = 0; j < hw; ++j)
        var += std::pow(unit.y[(i * c + ch) * hw + j] - mean, 2) / (n * hw);
    EXPECT_NEAR(mean, 0, 1e-14);
    EXPECT_NEAR(var, 1, 1e-12);
  }
  const BatchNormForward f = batch_norm_fwd(x, gamma, beta, n, c, hw, eps);
  const BatchNormBackward b = batch_norm_bwd(x, gamma, dy, f.mean, f.rstd, n, c, hw);
  auto loss_x = [&](const Vec& v) {
    return dot(batch_norm_fwd(v, gamma, beta, n, c, hw, eps).y, dy);
  };
  auto loss_g = [&](const Vec& v) { return dot(batch_norm_fwd(x, v, beta, n, c, hw, eps).y, dy); };
  expect_near_all(b.dx, numeric_gradient(loss_x, x), 1e-8);
  expect_near_all(b.dgamma, numeric_gradient(loss_g, gamma), 1e-8);
  EXPECT_NEAR(b.dbeta[0] + b.dbeta[1], std::accumulate(dy.begin(), dy.end(), 0.0), 1e-12);
}

TEST(PoolingReference, MaxPoolHandCaseAndGradientGoesToTheMaximum) {
  PoolShape s;
  s.h = s.w = 4;
  const Vec x = {1, 5, 2, 0,  //
                 3, 4, 8, 1,  //
                 0, 0, 1, 1,  //
                 9, 0, 1, 2};
  expect_near_all(max_pool_fwd(x, s), {5, 8, 9, 2}, 0);
  const Vec dx = max_pool_bwd(x, {10, 20, 30, 40}, s);
  Vec expected(16, 0.0);
  expected[1] = 10;
  expected[6] = 20;
  expected[12] = 30;
  expected[15] = 40;
  expect_near_all(dx, expected, 0);
  // ResNet's stem pool: 3x3, stride 2, padding 1 on 4x4 -> 2x2; padding never wins.
  PoolShape stem{1, 1, 4, 4, 3, 2, 1};
  const Vec neg = random_vec(16, 19, -5, -1);
  const Vec y = max_pool_fwd(neg, stem);
  ASSERT_EQ(y.size(), 4u);
  for (double v : y) EXPECT_LT(v, 0);
}

TEST(PoolingReference, AveragePoolCountsPaddingAndBackwardIsTheAdjoint) {
  PoolShape s{2, 3, 5, 5, 3, 2, 1};
  const Vec ones(s.n * s.c * s.h * s.w, 1.0);
  const Vec y = avg_pool_fwd(ones, s);
  EXPECT_NEAR(y[0], 4.0 / 9.0, 1e-15);  // corner window: 4 real elements of 9
  EXPECT_NEAR(y[4], 1.0, 1e-15);        // centre window (1,1): all 9 inside
  const Vec x = random_vec(ones.size(), 20), dy = random_vec(s.output_elems(), 21);
  EXPECT_NEAR(dot(avg_pool_fwd(x, s), dy), dot(x, avg_pool_bwd(dy, s)), 1e-13);
}

}  // namespace
}  // namespace ddpsim::ref
