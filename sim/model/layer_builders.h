// Internal to the model zoo: one function per PyTorch module type. Each appends one Layer with its
// parameter tensors, forward FLOPs, activation traffic and saved activations per sample, and
// (for images) returns the output shape, so an architecture reads like its reference forward().
//
// Conventions, all per sample:
// - fwd_flops: 2 per multiply-accumulate of a conv / matmul (bias adds ignored, < 0.1 %); a few
//   per element for norms, activations, pooling, softmax (constants below).
// - fwd_bytes: activation elements read + written by an unfused kernel; weights are not included
//   (they are read once per batch, not per sample; the cost model adds them).
// - activation_elems: counted at the producer. A layer counts its output when it is a new tensor
//   that some backward needs (conv output for BN, BN output for ReLU and the next conv, ...);
//   in-place ops (torchvision's ReLU(inplace=True), ResNet's `out += identity`) count 0. Dropout
//   also keeps its one-byte mask, counted as a quarter element (a byte next to fp32).
// - bwd_flops_factor: 2 for layers with a weight or a second activation operand (grad wrt input
//   and grad wrt weight/other operand, each as costly as the forward product). 1 for element-wise
//   layers: the backward of ReLU/GELU/dropout/add/pooling/softmax/norms is one element-wise pass
//   of about the forward's cost (norms: two reductions plus the input gradient, like the forward's
//   statistics plus normalisation); they are memory-bound anyway.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/model/layer.h"

namespace ddpsim::zoo {

using Layers = std::vector<Layer>;

// FLOPs per element of the element-wise layers.
constexpr double kReluFlops = 1;  // max(x, 0)
constexpr double kGeluFlops = 8;  // tanh/erf approximation, a handful of ops
constexpr double kTanhFlops = 4;
constexpr double kNormFlops = 8;     // training BN/LN: mean, variance, normalise, scale, shift
constexpr double kSoftmaxFlops = 5;  // max, subtract, exp, sum, divide
constexpr double kDropoutFlops = 2;  // random draw compared with p, multiply by mask/(1-p)
constexpr double kAddFlops = 1;
constexpr double kSiluFlops = 4;            // x * sigmoid(x): exp, add, divide, multiply
constexpr double kRmsNormFlops = 4;         // square, mean, scale by rsqrt, multiply by the weight
constexpr double kRotaryFlops = 3;          // x * cos + rotate_half(x) * sin
constexpr double kMaskBytesAsElems = 0.25;  // a bool mask next to fp32 activations

struct Image {
  int64_t c = 0, h = 0, w = 0;
  int64_t elems() const { return c * h * w; }
};

struct Kernel2d {
  int kh = 1, kw = 1;  // kernel
  int sh = 1, sw = 1;  // stride
  int ph = 0, pw = 0;  // padding
};
Kernel2d square(int k, int stride = 1, int pad = 0);
Kernel2d rect(int kh, int kw, int ph, int pw);  // stride 1, for Inception's 1xn / nx1 convs

// ---- image layers (torch.nn.Conv2d, BatchNorm2d, MaxPool2d, AvgPool2d, AdaptiveAvgPool2d)
// groups > 1: a grouped convolution (ResNeXt), each output channel reading in.c / groups inputs;
// in.c and out_channels must both divide by it.
Image conv2d(Layers& out, const std::string& name, Image in, int64_t out_channels, Kernel2d k,
             bool bias, int64_t groups = 1);
Image batchnorm2d(Layers& out, const std::string& name, Image in);
Image maxpool2d(Layers& out, const std::string& name, Image in, Kernel2d k);
Image avgpool2d(Layers& out, const std::string& name, Image in, Kernel2d k);
Image adaptive_avgpool2d(Layers& out, const std::string& name, Image in, int64_t oh, int64_t ow);

// ---- element-wise layers on `elems` elements
void relu(Layers& out, const std::string& name, int64_t elems, bool inplace);
void gelu(Layers& out, const std::string& name, int64_t elems);
void tanh_activation(Layers& out, const std::string& name, int64_t elems);
// SiLU (swish), the gate activation of Llama's SwiGLU MLP; its output is kept (the product
// saves it).
void silu(Layers& out, const std::string& name, int64_t elems);
// out = a * b of two activations (SwiGLU's act(gate) * up); both operands are kept by the
// product's backward, counted at their producers; `kept`: the product itself is saved later.
void multiply(Layers& out, const std::string& name, int64_t elems, bool kept);
// Rotary position embedding applied to queries and keys (`elems` = both together), eager: a
// rotate_half copy, two multiplies by the cos/sin tables, an add. Its outputs feed attention,
// which keeps them.
void rotary(Layers& out, const std::string& name, int64_t elems);
// `kept`: the output is saved by a later backward (false when it feeds only an add).
void dropout(Layers& out, const std::string& name, int64_t elems, bool kept = true);
// out = a + b (residual, position embedding, ...). `kept`: the sum is a new tensor that a later
// backward saves (false for an in-place add into a tensor counted already, or one feeding
// dropout).
void add(Layers& out, const std::string& name, int64_t elems, bool kept);
// out = a * constant (embedding scale); its output feeds an add, so nothing is kept.
void scale(Layers& out, const std::string& name, int64_t elems);
// torch.cat along channels or tokens: a copy of every element; `params` for a learned token.
void concat(Layers& out, const std::string& name, int64_t elems, std::vector<int64_t> params = {},
            bool kept = true);
// A learned tensor added to the activations (ViT's pos_embedding).
void add_parameter(Layers& out, const std::string& name, int64_t elems, int64_t param_elems);

// ---- token layers: `tokens` rows of `dim` features per sample
// Every builder that adds parameter tensors names them as PyTorch does: "<layer>.weight",
// "<layer>.bias" (a lone learned tensor takes the layer's own name).
// nn.Linear / HF Conv1D: weight then bias. `tied` = the weight belongs to an embedding and is
// listed there (GPT-2's lm_head, fairseq's output projection): no parameter tensors here.
// `kept` as for dropout.
void linear(Layers& out, const std::string& name, int64_t tokens, int64_t in_features,
            int64_t out_features, bool bias, bool tied = false, bool kept = true);
void layernorm(Layers& out, const std::string& name, int64_t tokens, int64_t dim);
// RMSNorm (Llama, Mistral): a weight and no bias, no mean subtraction.
void rmsnorm(Layers& out, const std::string& name, int64_t tokens, int64_t dim);
// nn.Embedding lookup of `tokens` rows from a (rows x dim) table; `owns_table` is false where a
// shared table was already listed by an earlier layer.
void embedding(Layers& out, const std::string& name, int64_t tokens, int64_t rows, int64_t dim,
               bool owns_table = true);
// softmax(Q K^T / sqrt(d_head) + mask) V for all heads: the two batched matmuls, scale, mask,
// softmax and (if `dropout`) attention dropout. `fused` = one flash/SDPA kernel that never
// writes the heads x q x kv probabilities to memory; otherwise the unfused eager path, which
// writes and keeps them. `kv_heads` < heads is grouped-query attention (Llama-2 70B, Llama-3,
// Mistral): the same FLOPs, fewer key and value elements to read (0 = heads).
void attention_core(Layers& out, const std::string& name, int64_t q_tokens, int64_t kv_tokens,
                    int64_t dim, int64_t heads, bool dropout, bool fused, int64_t kv_heads = 0);
// Re-costs an attention_core layer as fused (sdpa / flash) or eager: its bytes, saved
// activations and dims[4]; FLOPs are the same. False (unchanged) for a layer that is not an
// attention core built by attention_core (a model file's).
bool set_attention_fused(Layer& l, bool fused);
// Cross-entropy over `classes` logits for each of `tokens` positions (log-softmax + NLL).
void cross_entropy(Layers& out, const std::string& name, int64_t tokens, int64_t classes);

}  // namespace ddpsim::zoo
