// cuDNN-backed image layers in NCHW: 2-D convolution (forward, backward-data, backward-filter),
// training-mode batch norm (spatial) and max / average pooling, with the semantics of
// kernels/reference/{conv2d,batch_norm,pooling}.h. Data, filters and their gradients are of the
// activation dtype; batch-norm parameters and statistics are fp32 (as cuDNN requires for 16-bit
// data). Convolution math: strict FP32 for fp32, tensor-op math otherwise (TF32 for tf32).
// Algorithms come from cuDNN's heuristics (cudnnGet*_v7, as PyTorch without benchmark mode),
// the fastest whose workspace fits; each object plans once and then only runs.
#pragma once

#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <cstdint>
#include <string>

#include "kernels/device_buffer.h"
#include "kernels/dtype.h"

namespace ddpsim::kernels {

class Dnn {
 public:
  explicit Dnn(cudaStream_t stream);
  ~Dnn();
  Dnn(const Dnn&) = delete;
  Dnn& operator=(const Dnn&) = delete;
  cudnnHandle_t get() const { return handle_; }
  static std::string version();  // "9.19.0"

 private:
  cudnnHandle_t handle_ = nullptr;
};

struct ConvParams {
  int64_t n = 1, c = 1, h = 1, w = 1;  // input
  int64_t k = 1;                       // output channels
  int64_t r = 1, s = 1;                // filter
  int64_t stride_h = 1, stride_w = 1;
  int64_t pad_h = 0, pad_w = 0;
  int64_t groups = 1;
};

class Conv2d {
 public:
  // tf32: allow TF32 tensor cores for fp32 data (ignored for 16-bit data, which always uses them).
  Conv2d(const Dnn& dnn, const ConvParams& p, DType dtype, bool tf32,
         size_t max_workspace = 256ull << 20);
  ~Conv2d();
  Conv2d(const Conv2d&) = delete;
  Conv2d& operator=(const Conv2d&) = delete;

  int64_t out_h() const { return out_h_; }
  int64_t out_w() const { return out_w_; }
  int64_t input_elems() const { return p_.n * p_.c * p_.h * p_.w; }
  int64_t filter_elems() const { return p_.k * (p_.c / p_.groups) * p_.r * p_.s; }
  int64_t output_elems() const { return p_.n * p_.k * out_h_ * out_w_; }
  size_t workspace_bytes() const { return workspace_.bytes(); }
  std::string algorithms() const;  // "fwd 1 / data 1 / filter 3", for logs

  void forward(const void* x, const void* filter, void* y);
  void backward_data(const void* dy, const void* filter, void* dx);
  void backward_filter(const void* x, const void* dy, void* dfilter);

 private:
  void plan(DType dtype, bool tf32, size_t max_workspace);
  void release();

  cudnnHandle_t handle_;
  ConvParams p_;
  int64_t out_h_ = 0, out_w_ = 0;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnFilterDescriptor_t w_desc_ = nullptr;
  cudnnConvolutionDescriptor_t conv_desc_ = nullptr;
  cudnnConvolutionFwdAlgo_t fwd_algo_{};
  cudnnConvolutionBwdDataAlgo_t data_algo_{};
  cudnnConvolutionBwdFilterAlgo_t filter_algo_{};
  DeviceBuffer workspace_;
};

class BatchNorm2d {
 public:
  BatchNorm2d(const Dnn& dnn, int64_t n, int64_t c, int64_t h, int64_t w, DType dtype);
  ~BatchNorm2d();
  BatchNorm2d(const BatchNorm2d&) = delete;
  BatchNorm2d& operator=(const BatchNorm2d&) = delete;

  // Per-channel fp32 arrays of c elements. save_mean / save_rstd feed backward; running
  // statistics are updated with `momentum` as PyTorch does (unbiased variance).
  void forward_training(const void* x, void* y, const float* gamma, const float* beta,
                        float* running_mean, float* running_var, float* save_mean, float* save_rstd,
                        double eps = 1e-5, double momentum = 0.1);
  void backward(const void* x, const void* dy, void* dx, const float* gamma, float* dgamma,
                float* dbeta, const float* save_mean, const float* save_rstd, double eps = 1e-5);

 private:
  cudnnHandle_t handle_;
  cudnnTensorDescriptor_t x_desc_ = nullptr, param_desc_ = nullptr;
};

enum class PoolMode { kMax, kAverage };  // average counts padding (PyTorch's default)

class Pool2d {
 public:
  Pool2d(const Dnn& dnn, int64_t n, int64_t c, int64_t h, int64_t w, int64_t window, int64_t stride,
         int64_t pad, PoolMode mode, DType dtype);
  ~Pool2d();
  Pool2d(const Pool2d&) = delete;
  Pool2d& operator=(const Pool2d&) = delete;

  int64_t output_elems() const { return output_elems_; }
  void forward(const void* x, void* y);
  void backward(const void* y, const void* dy, const void* x, void* dx);

 private:
  cudnnHandle_t handle_;
  int64_t output_elems_ = 0;
  cudnnTensorDescriptor_t x_desc_ = nullptr, y_desc_ = nullptr;
  cudnnPoolingDescriptor_t pool_desc_ = nullptr;
};

}  // namespace ddpsim::kernels
