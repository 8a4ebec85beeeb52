// Runs one model-zoo layer on the GPU for real, from the per-sample shape in Layer::dims
// (sim/model/layer.h): buffers of the batch's size filled with random values, and the forward
// and backward passes as closures enqueued on one stream.
//   conv        cuDNN forward; backward = backward-data + backward-filter
//   linear      cuBLASLt: Y = X W^T; backward dX = dY W and dW = dY^T X
//   attention   cuBLAS strided-batched Q K^T, own softmax, P V (unfused, per head); backward the
//               four products and the softmax gradient. Fused (flash/SDPA) layers and
//               cross-attention with another key length are skipped (left to the roofline).
//   batch_norm  cuDNN training-mode BN (dims: elements, channels)
//   pool        cuDNN max pool (average when the name says avg), with the zoo's padding
//   layer_norm, softmax, activation (ReLU or GELU by FLOPs per element), dropout (p = 0.1),
//   elementwise (an add), embedding, loss (cross-entropy): own kernels
// Activations use the precision's dtype (fp16/bf16 for mixed precision, fp32 otherwise); batch
// norm, layer norm and embedding gradients keep fp32 statistics/parameters as PyTorch AMP does.
#pragma once

#include <cuda_runtime_api.h>

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/cudnn_ops.h"
#include "kernels/gemm.h"
#include "sim/model/layer.h"
#include "sim/scenario/scenario.h"

namespace ddpsim::calibrate {

// The layer cannot be run from what the zoo gives (no dims, unknown shape): skipped, with why.
class UnsupportedLayer : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct LayerContext {
  cudaStream_t stream = nullptr;
  kernels::Blas* blas = nullptr;
  kernels::Dnn* dnn = nullptr;
};

struct LayerWork {
  std::function<void()> forward;
  std::function<void()> backward;
  double fwd_flops = 0;  // whole batch, from the zoo
  double bwd_flops = 0;
  double fwd_bytes = 0;
  double bwd_bytes = 0;
  std::string detail;                        // e.g. the cuDNN algorithms chosen, for the log
  std::vector<std::shared_ptr<void>> owned;  // buffers and plans the closures use
};

kernels::GemmMath gemm_math(Precision precision);
kernels::DType activation_dtype(Precision precision);

// Throws UnsupportedLayer, or kernels::GpuError (out_of_memory() when the batch does not fit).
LayerWork build_layer_work(const Layer& layer, int batch, Precision precision,
                           const LayerContext& ctx);

}  // namespace ddpsim::calibrate
