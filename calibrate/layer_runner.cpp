#include "calibrate/layer_runner.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "kernels/check.h"
#include "kernels/device_buffer.h"
#include "kernels/elementwise.h"
#include "kernels/embedding.h"
#include "kernels/row_ops.h"
#include "sim/measurements/calibration_profile.h"

namespace ddpsim::calibrate {

using kernels::DeviceBuffer;
using kernels::DType;

kernels::GemmMath gemm_math(Precision precision) {
  switch (precision) {
    case Precision::kTf32:
      return kernels::GemmMath::kTf32;
    case Precision::kFp16:
      return kernels::GemmMath::kFp16;
    case Precision::kBf16:
      return kernels::GemmMath::kBf16;
    default:
      return kernels::GemmMath::kFp32;
  }
}

DType activation_dtype(Precision precision) { return kernels::gemm_dtype(gemm_math(precision)); }

namespace {

// Allocates buffers for one layer and keeps them alive in work.owned.
class Buffers {
 public:
  Buffers(LayerWork& work, cudaStream_t stream) : work_(work), stream_(stream) {}

  // `elems` elements of `dtype`, uniform in [lo, hi).
  void* random(DType dtype, int64_t elems, float lo = -1.f, float hi = 1.f) {
    void* p = raw(elems * kernels::dtype_size(dtype));
    kernels::fill_uniform(dtype, p, elems, lo, hi, ++seed_, stream_);
    return p;
  }
  // Written by the layer before anything reads it.
  void* output(DType dtype, int64_t elems) { return raw(elems * kernels::dtype_size(dtype)); }
  float* floats(int64_t elems, float lo, float hi) {
    return static_cast<float*>(random(DType::kF32, elems, lo, hi));
  }
  int32_t* indices(int64_t n, int32_t limit) {
    auto* p = static_cast<int32_t*>(raw(n * 4));
    kernels::fill_indices(p, n, limit, ++seed_, stream_);
    return p;
  }

 private:
  void* raw(int64_t bytes) {
    auto b = std::make_shared<DeviceBuffer>(static_cast<size_t>(bytes));
    work_.owned.push_back(b);
    return b->get();
  }

  LayerWork& work_;
  cudaStream_t stream_;
  uint64_t seed_ = 0x5eed;
};

// `zero_ok`: the index of a value that may be 0 (a convolution's padding), or count for none.
void require_dims(const Layer& layer, size_t count, const char* meaning, size_t zero_ok) {
  if (layer.dims.size() < count)
    throw UnsupportedLayer("the model zoo gives no shape for this " +
                           std::string(layer_kind_key(layer.kind)) + " layer (Layer::dims has " +
                           std::to_string(layer.dims.size()) + " values; expected " + meaning +
                           ")");
  for (size_t i = 0; i < count; ++i)
    if (layer.dims[i] < 0 || (layer.dims[i] == 0 && i != zero_ok))
      throw UnsupportedLayer("Layer::dims[" + std::to_string(i) + "] is " +
                             std::to_string(layer.dims[i]) + "; expected " + meaning);
}

void require_dims(const Layer& layer, size_t count, const char* meaning) {
  require_dims(layer, count, meaning, count);
}

void build_conv(const Layer& layer, int batch, Precision precision, const LayerContext& ctx,
                LayerWork& work) {
  // A 1x1 convolution (a bottleneck's first and last) has no padding.
  require_dims(layer, 9, "in_c, in_h, in_w, out_c, kernel_h, kernel_w, stride, pad, groups", 7);
  const auto& d = layer.dims;
  kernels::ConvParams p;
  p.n = batch;
  p.c = d[0];
  p.h = d[1];
  p.w = d[2];
  p.k = d[3];
  p.r = d[4];
  p.s = d[5];
  p.stride_h = p.stride_w = d[6];
  // One pad for both sides: a non-square kernel (Inception's 1x7) gets "same" padding on each
  // side, never more than the given pad.
  p.pad_h = p.r == p.s ? d[7] : std::min<int64_t>(d[7], (p.r - 1) / 2);
  p.pad_w = p.r == p.s ? d[7] : std::min<int64_t>(d[7], (p.s - 1) / 2);
  p.groups = d[8];
  const DType t = activation_dtype(precision);
  auto conv = std::make_shared<kernels::Conv2d>(*ctx.dnn, p, t, precision == Precision::kTf32);
  work.owned.push_back(conv);
  Buffers b(work, ctx.stream);
  void* x = b.random(t, conv->input_elems());
  void* w = b.random(t, conv->filter_elems(), -0.1f, 0.1f);
  void* y = b.output(t, conv->output_elems());
  void* dy = b.random(t, conv->output_elems());
  void* dx = b.output(t, conv->input_elems());
  void* dw = b.output(t, conv->filter_elems());
  kernels::Conv2d* c = conv.get();
  work.forward = [=] { c->forward(x, w, y); };
  work.backward = [=] {
    c->backward_data(dy, w, dx);
    c->backward_filter(x, dy, dw);
  };
  work.detail = "cuDNN algorithms " + conv->algorithms();
}

void build_linear(const Layer& layer, int batch, Precision precision, const LayerContext& ctx,
                  LayerWork& work) {
  require_dims(layer, 3, "rows, in_features, out_features");
  const int64_t m = batch * layer.dims[0], in = layer.dims[1], out = layer.dims[2];
  const kernels::GemmMath math = gemm_math(precision);
  const DType t = kernels::gemm_dtype(math);
  auto fwd = std::make_shared<kernels::GemmPlan>(*ctx.blas, math, false, true, m, out, in);
  auto bwd_data = std::make_shared<kernels::GemmPlan>(*ctx.blas, math, false, false, m, in, out);
  auto bwd_weight = std::make_shared<kernels::GemmPlan>(*ctx.blas, math, true, false, out, in, m);
  work.owned.insert(work.owned.end(), {fwd, bwd_data, bwd_weight});
  Buffers b(work, ctx.stream);
  void* x = b.random(t, m * in);
  void* w = b.random(t, out * in, -0.1f, 0.1f);
  void* y = b.output(t, m * out);
  void* dy = b.random(t, m * out);
  void* dx = b.output(t, m * in);
  void* dw = b.output(t, out * in);
  work.forward = [=] { fwd->run(1.f, x, w, 0.f, y); };
  work.backward = [=] {
    bwd_data->run(1.f, dy, w, 0.f, dx);
    bwd_weight->run(1.f, dy, x, 0.f, dw);
  };
}

void build_attention(const Layer& layer, int batch, Precision precision, const LayerContext& ctx,
                     LayerWork& work) {
  require_dims(layer, 3, "seq, heads, head_dim");
  const int64_t seq = layer.dims[0], heads = layer.dims[1], hd = layer.dims[2];
  // The kernels here are the eager (unfused) path; a flash/SDPA layer or a cross-attention with
  // another key length is left to the roofline rather than timed as something it is not.
  if (layer.dims.size() >= 4 && layer.dims[3] != seq)
    throw UnsupportedLayer("cross-attention with " + std::to_string(layer.dims[3]) + " keys for " +
                           std::to_string(seq) + " queries: only self-attention is timed");
  if (layer.dims.size() >= 5 && layer.dims[4] != 0)
    throw UnsupportedLayer("fused (flash/SDPA) attention: kernels/ times the unfused path only");
  const int64_t bh = batch * heads;
  const kernels::GemmMath math = gemm_math(precision);
  const DType t = kernels::gemm_dtype(math);
  Buffers b(work, ctx.stream);
  void* q = b.random(t, bh * seq * hd);
  void* k = b.random(t, bh * seq * hd);
  void* v = b.random(t, bh * seq * hd);
  void* s = b.output(t, bh * seq * seq);  // scores, then probabilities in place
  void* o = b.output(t, bh * seq * hd);
  void* dout = b.random(t, bh * seq * hd);
  void* dp = b.output(t, bh * seq * seq);
  void* dq = b.output(t, bh * seq * hd);
  void* dk = b.output(t, bh * seq * hd);
  void* dv = b.output(t, bh * seq * hd);
  kernels::Blas* blas = ctx.blas;
  cudaStream_t stream = ctx.stream;
  const float scale = 1.f / std::sqrt(static_cast<float>(hd));
  const int64_t qk = seq * hd, ss = seq * seq;
  work.forward = [=] {
    blas->gemm_strided_batched(math, false, true, seq, seq, hd, scale, q, qk, k, qk, 0.f, s, ss,
                               bh);
    kernels::softmax_fwd(t, s, s, bh * seq, seq, stream);
    blas->gemm_strided_batched(math, false, false, seq, hd, seq, 1.f, s, ss, v, qk, 0.f, o, qk, bh);
  };
  work.backward = [=] {
    blas->gemm_strided_batched(math, false, true, seq, seq, hd, 1.f, dout, qk, v, qk, 0.f, dp, ss,
                               bh);  // dP = dO V^T
    blas->gemm_strided_batched(math, true, false, seq, hd, seq, 1.f, s, ss, dout, qk, 0.f, dv, qk,
                               bh);                             // dV = P^T dO
    kernels::softmax_bwd(t, s, dp, dp, bh * seq, seq, stream);  // dS
    blas->gemm_strided_batched(math, false, false, seq, hd, seq, scale, dp, ss, k, qk, 0.f, dq, qk,
                               bh);  // dQ = dS K
    blas->gemm_strided_batched(math, true, false, seq, hd, seq, scale, dp, ss, q, qk, 0.f, dk, qk,
                               bh);  // dK = dS^T Q
  };
}

void build_batch_norm(const Layer& layer, int batch, Precision precision, const LayerContext& ctx,
                      LayerWork& work) {
  require_dims(layer, 2, "elements, channels");
  const int64_t c = layer.dims[1], hw = layer.dims[0] / layer.dims[1];
  if (hw * c != layer.dims[0])
    throw UnsupportedLayer("batch norm elements " + std::to_string(layer.dims[0]) +
                           " are not a multiple of its channels " + std::to_string(c));
  const DType t = activation_dtype(precision);
  auto bn = std::make_shared<kernels::BatchNorm2d>(*ctx.dnn, batch, c, hw, 1, t);
  work.owned.push_back(bn);
  Buffers b(work, ctx.stream);
  const int64_t n = batch * layer.dims[0];
  void* x = b.random(t, n);
  void* y = b.output(t, n);
  void* dy = b.random(t, n);
  void* dx = b.output(t, n);
  float* gamma = b.floats(c, 0.5f, 1.5f);
  float* beta = b.floats(c, -0.1f, 0.1f);
  float* rmean = b.floats(c, 0.f, 0.f);
  float* rvar = b.floats(c, 1.f, 1.f);
  float* smean = b.floats(c, 0.f, 0.f);
  float* srstd = b.floats(c, 1.f, 1.f);
  float* dgamma = b.floats(c, 0.f, 0.f);
  float* dbeta = b.floats(c, 0.f, 0.f);
  kernels::BatchNorm2d* p = bn.get();
  work.forward = [=] { p->forward_training(x, y, gamma, beta, rmean, rvar, smean, srstd); };
  work.backward = [=] { p->backward(x, dy, dx, gamma, dgamma, dbeta, smean, srstd); };
}

void build_pool(const Layer& layer, int batch, Precision precision, const LayerContext& ctx,
                LayerWork& work) {
  require_dims(layer, 5, "channels, in_h, in_w, kernel, stride[, pad]");
  const auto& d = layer.dims;
  const int64_t pad = d.size() >= 6 ? d[5] : 0;
  const bool average = layer.name.find("avg") != std::string::npos;
  const DType t = activation_dtype(precision);
  auto pool = std::make_shared<kernels::Pool2d>(
      *ctx.dnn, batch, d[0], d[1], d[2], d[3], d[4], pad,
      average ? kernels::PoolMode::kAverage : kernels::PoolMode::kMax, t);
  work.owned.push_back(pool);
  Buffers b(work, ctx.stream);
  const int64_t in = batch * d[0] * d[1] * d[2];
  void* x = b.random(t, in);
  void* y = b.output(t, pool->output_elems());
  void* dy = b.random(t, pool->output_elems());
  void* dx = b.output(t, in);
  kernels::Pool2d* p = pool.get();
  work.forward = [=] { p->forward(x, y); };
  work.backward = [=] { p->backward(y, dy, x, dx); };
}

void build_layer_norm(const Layer& layer, int batch, Precision precision, const LayerContext& ctx,
                      LayerWork& work) {
  require_dims(layer, 2, "elements, normalized size");
  const int64_t cols = layer.dims[1], rows = batch * layer.dims[0] / cols;
  const DType t = activation_dtype(precision);
  Buffers b(work, ctx.stream);
  void* x = b.random(t, rows * cols);
  void* y = b.output(t, rows * cols);
  void* dy = b.random(t, rows * cols);
  void* dx = b.output(t, rows * cols);
  float* gamma = b.floats(cols, 0.5f, 1.5f);
  float* beta = b.floats(cols, -0.1f, 0.1f);
  float* mean = b.floats(rows, 0.f, 0.f);
  float* rstd = b.floats(rows, 1.f, 1.f);
  float* dgamma = b.floats(cols, 0.f, 0.f);
  float* dbeta = b.floats(cols, 0.f, 0.f);
  cudaStream_t s = ctx.stream;
  work.forward = [=] {
    kernels::layer_norm_fwd(t, x, gamma, beta, y, mean, rstd, rows, cols, 1e-5f, s);
  };
  work.backward = [=] {
    kernels::layer_norm_bwd(t, x, gamma, dy, mean, rstd, dx, dgamma, dbeta, rows, cols, s);
  };
}

void build_elementwise(const Layer& layer, int batch, Precision precision, const LayerContext& ctx,
                       LayerWork& work) {
  require_dims(layer, 1, "elements per sample");
  const int64_t n = batch * layer.dims[0];
  const DType t = activation_dtype(precision);
  Buffers b(work, ctx.stream);
  cudaStream_t s = ctx.stream;
  void* x = b.random(t, n);
  void* y = b.output(t, n);
  void* dy = b.random(t, n);
  void* dx = b.output(t, n);
  switch (layer.kind) {
    case LayerKind::kActivation: {
      // The zoo counts 1 FLOP per element for ReLU, more for GELU (erf) and tanh.
      const bool relu = layer.fwd_flops <= 1.5 * layer.dims[0];
      work.detail = relu ? "relu" : "gelu";
      if (relu) {
        work.forward = [=] { kernels::relu_fwd(t, x, y, n, s); };
        work.backward = [=] { kernels::relu_bwd(t, x, dy, dx, n, s); };
      } else {
        work.forward = [=] { kernels::gelu_fwd(t, x, y, n, s); };
        work.backward = [=] { kernels::gelu_bwd(t, x, dy, dx, n, s); };
      }
      return;
    }
    case LayerKind::kDropout: {
      auto* keep = static_cast<uint8_t*>(b.output(DType::kF32, (n + 3) / 4));
      work.forward = [=] { kernels::dropout_fwd(t, x, y, keep, n, 0.1f, 7, s); };
      work.backward = [=] { kernels::dropout_bwd(t, dy, keep, dx, n, 0.1f, s); };
      return;
    }
    case LayerKind::kSoftmax: {
      const int64_t cols =
          layer.dims.size() >= 2 && layer.dims[1] > 0 ? layer.dims[1] : layer.dims[0];
      const int64_t rows = n / cols;
      work.forward = [=] { kernels::softmax_fwd(t, x, y, rows, cols, s); };
      work.backward = [=] { kernels::softmax_bwd(t, y, dy, dx, rows, cols, s); };
      return;
    }
    default: {
      // Residual add, scale, concat: one read-read-write pass. Backward: the gradient is
      // accumulated where the two paths meet, another add.
      void* other = b.random(t, n);
      work.forward = [=] { kernels::add(t, x, other, y, n, s); };
      work.backward = [=] { kernels::add(t, dy, other, dx, n, s); };
      return;
    }
  }
}

void build_embedding(const Layer& layer, int batch, Precision precision, const LayerContext& ctx,
                     LayerWork& work) {
  require_dims(layer, 3, "tokens, vocab, dim");
  const int64_t tokens = batch * layer.dims[0], vocab = layer.dims[1], dim = layer.dims[2];
  const DType t = activation_dtype(precision);
  Buffers b(work, ctx.stream);
  void* table = b.random(t, vocab * dim, -0.1f, 0.1f);
  int32_t* ids = b.indices(tokens, static_cast<int32_t>(vocab));
  void* out = b.output(t, tokens * dim);
  void* dout = b.random(t, tokens * dim);
  float* dtable = static_cast<float*>(b.output(DType::kF32, vocab * dim));
  cudaStream_t s = ctx.stream;
  work.forward = [=] { kernels::embedding_fwd(t, table, ids, out, tokens, dim, s); };
  work.backward = [=] { kernels::embedding_bwd(t, dout, ids, dtable, tokens, vocab, dim, s); };
}

void build_loss(const Layer& layer, int batch, Precision precision, const LayerContext& ctx,
                LayerWork& work) {
  require_dims(layer, 1, "classes (or tokens, classes)");
  const bool two = layer.dims.size() >= 2 && layer.dims[1] > 0;
  const int64_t rows = batch * (two ? layer.dims[0] : 1);
  const int64_t classes = two ? layer.dims[1] : layer.dims[0];
  const DType t = activation_dtype(precision);
  Buffers b(work, ctx.stream);
  void* logits = b.random(t, rows * classes, -4.f, 4.f);
  int32_t* labels = b.indices(rows, static_cast<int32_t>(classes));
  float* loss = static_cast<float*>(b.output(DType::kF32, rows));
  void* dlogits = b.output(t, rows * classes);
  cudaStream_t s = ctx.stream;
  work.forward = [=] { kernels::cross_entropy_fwd(t, logits, labels, loss, rows, classes, s); };
  work.backward = [=] { kernels::cross_entropy_bwd(t, logits, labels, dlogits, rows, classes, s); };
}

}  // namespace

LayerWork build_layer_work(const Layer& layer, int batch, Precision precision,
                           const LayerContext& ctx) {
  kernels::ScopedLayer scope(layer.name + " (setup)");
  LayerWork work;
  const double elem = static_cast<double>(kernels::dtype_size(activation_dtype(precision)));
  work.fwd_flops = layer.fwd_flops * batch;
  work.bwd_flops = layer.fwd_flops * layer.bwd_flops_factor * batch;
  work.fwd_bytes = layer.fwd_bytes * elem * batch;
  work.bwd_bytes = 2 * work.fwd_bytes;
  switch (layer.kind) {
    case LayerKind::kConv:
      build_conv(layer, batch, precision, ctx, work);
      break;
    case LayerKind::kLinear:
      build_linear(layer, batch, precision, ctx, work);
      break;
    case LayerKind::kAttention:
      build_attention(layer, batch, precision, ctx, work);
      break;
    case LayerKind::kBatchNorm:
      build_batch_norm(layer, batch, precision, ctx, work);
      break;
    case LayerKind::kPool:
      build_pool(layer, batch, precision, ctx, work);
      break;
    case LayerKind::kLayerNorm:
      build_layer_norm(layer, batch, precision, ctx, work);
      break;
    case LayerKind::kEmbedding:
      build_embedding(layer, batch, precision, ctx, work);
      break;
    case LayerKind::kLoss:
      build_loss(layer, batch, precision, ctx, work);
      break;
    case LayerKind::kActivation:
    case LayerKind::kSoftmax:
    case LayerKind::kDropout:
    case LayerKind::kElementwise:
      build_elementwise(layer, batch, precision, ctx, work);
      break;
  }
  DDPSIM_CUDA_CHECK(cudaStreamSynchronize(ctx.stream));  // random fills done, setup errors here
  return work;
}

}  // namespace ddpsim::calibrate
