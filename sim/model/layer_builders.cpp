#include "sim/model/layer_builders.h"

#include <algorithm>
#include <stdexcept>
#include <utility>

namespace ddpsim::zoo {
namespace {

Layer& append(Layers& out, const std::string& name, LayerKind kind) {
  out.push_back(Layer{});
  Layer& l = out.back();
  l.name = name;
  l.kind = kind;
  return l;
}

// "<layer>.weight" then "<layer>.bias" for the tensors the layer owns, as PyTorch names them.
void name_weight_bias(Layer& l) {
  l.param_names.clear();
  if (l.param_tensors.size() >= 1) l.param_names.push_back(l.name + ".weight");
  if (l.param_tensors.size() >= 2) l.param_names.push_back(l.name + ".bias");
}

// PyTorch's output size for conv and pooling (floor mode).
int64_t out_size(int64_t in, int k, int stride, int pad) { return (in + 2 * pad - k) / stride + 1; }

Image pooled_shape(Image in, Kernel2d k) {
  return Image{in.c, out_size(in.h, k.kh, k.sh, k.ph), out_size(in.w, k.kw, k.sw, k.pw)};
}

}  // namespace

Kernel2d square(int k, int stride, int pad) { return Kernel2d{k, k, stride, stride, pad, pad}; }

Kernel2d rect(int kh, int kw, int ph, int pw) { return Kernel2d{kh, kw, 1, 1, ph, pw}; }

Image conv2d(Layers& out, const std::string& name, Image in, int64_t out_channels, Kernel2d k,
             bool bias, int64_t groups) {
  if (groups < 1 || in.c % groups != 0 || out_channels % groups != 0)
    throw std::invalid_argument(name + ": channels do not divide into groups");
  Image o{out_channels, out_size(in.h, k.kh, k.sh, k.ph), out_size(in.w, k.kw, k.sw, k.pw)};
  Layer& l = append(out, name, LayerKind::kConv);
  const int64_t in_per_group = in.c / groups;
  const int64_t weight = out_channels * in_per_group * k.kh * k.kw;
  l.param_tensors =
      bias ? std::vector<int64_t>{weight, out_channels} : std::vector<int64_t>{weight};
  name_weight_bias(l);
  l.fwd_flops = 2.0 * in_per_group * k.kh * k.kw * static_cast<double>(o.elems());
  l.fwd_bytes = static_cast<double>(in.elems() + o.elems());
  l.activation_elems = static_cast<double>(o.elems());
  // One stride and one pad: the zoo's strides are square; a 1xn kernel's pad is on its long side.
  l.dims = {in.c, in.h, in.w, out_channels, k.kh, k.kw, k.sh, std::max(k.ph, k.pw), groups};
  return o;
}

Image batchnorm2d(Layers& out, const std::string& name, Image in) {
  Layer& l = append(out, name, LayerKind::kBatchNorm);
  const double n = static_cast<double>(in.elems());
  l.param_tensors = {in.c, in.c};  // weight (gamma), bias (beta); running stats are buffers
  name_weight_bias(l);
  l.fwd_flops = kNormFlops * n;
  l.fwd_bytes = 3 * n;  // statistics pass + normalise pass read the input; one write
  l.activation_elems = n;
  l.bwd_flops_factor = 1.0;
  l.dims = {in.elems(), in.c};
  return in;
}

Image maxpool2d(Layers& out, const std::string& name, Image in, Kernel2d k) {
  const Image o = pooled_shape(in, k);
  Layer& l = append(out, name, LayerKind::kPool);
  const double n_out = static_cast<double>(o.elems());
  l.fwd_flops = static_cast<double>(k.kh) * k.kw * n_out;  // one comparison per window element
  l.fwd_bytes = static_cast<double>(in.elems()) + n_out;
  l.activation_elems = 3 * n_out;  // output plus int64 argmax indices (two fp32 elements each)
  l.bwd_flops_factor = 1.0;
  l.dims = {in.c, in.h, in.w, k.kh, k.sh, k.ph};
  return o;
}

Image avgpool2d(Layers& out, const std::string& name, Image in, Kernel2d k) {
  const Image o = pooled_shape(in, k);
  Layer& l = append(out, name, LayerKind::kPool);
  const double n_out = static_cast<double>(o.elems());
  l.fwd_flops = static_cast<double>(k.kh) * k.kw * n_out;
  l.fwd_bytes = static_cast<double>(in.elems()) + n_out;
  l.activation_elems = n_out;
  l.bwd_flops_factor = 1.0;
  l.dims = {in.c, in.h, in.w, k.kh, k.sh, k.ph};
  return o;
}

Image adaptive_avgpool2d(Layers& out, const std::string& name, Image in, int64_t oh, int64_t ow) {
  const Image o{in.c, oh, ow};
  Layer& l = append(out, name, LayerKind::kPool);
  l.fwd_flops = static_cast<double>(in.elems() + o.elems());  // sum every input, divide once
  l.fwd_bytes = static_cast<double>(in.elems() + o.elems());
  l.activation_elems = static_cast<double>(o.elems());
  l.bwd_flops_factor = 1.0;
  // An adaptive pool whose output divides its input is a plain pool with kernel = stride.
  if (oh > 0 && ow > 0 && in.h % oh == 0 && in.w % ow == 0 && in.h / oh == in.w / ow)
    l.dims = {in.c, in.h, in.w, in.h / oh, in.h / oh, 0};
  return o;
}

namespace {

Layer& elementwise(Layers& out, const std::string& name, LayerKind kind, int64_t elems,
                   double flops_per_elem, double bytes_per_elem, double kept_per_elem) {
  Layer& l = append(out, name, kind);
  const double n = static_cast<double>(elems);
  l.fwd_flops = flops_per_elem * n;
  l.fwd_bytes = bytes_per_elem * n;
  l.activation_elems = kept_per_elem * n;
  l.bwd_flops_factor = 1.0;
  l.dims = {elems};
  return l;
}

}  // namespace

void relu(Layers& out, const std::string& name, int64_t elems, bool inplace) {
  elementwise(out, name, LayerKind::kActivation, elems, kReluFlops, 2, inplace ? 0 : 1);
}

void gelu(Layers& out, const std::string& name, int64_t elems) {
  elementwise(out, name, LayerKind::kActivation, elems, kGeluFlops, 2, 1);
}

void tanh_activation(Layers& out, const std::string& name, int64_t elems) {
  elementwise(out, name, LayerKind::kActivation, elems, kTanhFlops, 2, 1);
}

void silu(Layers& out, const std::string& name, int64_t elems) {
  elementwise(out, name, LayerKind::kActivation, elems, kSiluFlops, 2, 1);
}

void multiply(Layers& out, const std::string& name, int64_t elems, bool kept) {
  elementwise(out, name, LayerKind::kElementwise, elems, 1, 3, kept ? 1 : 0);
}

void rotary(Layers& out, const std::string& name, int64_t elems) {
  // rotate_half reads x and writes a copy; x * cos + copy * sin reads both and writes the
  // result (the cos and sin tables are per position, shared by the batch).
  elementwise(out, name, LayerKind::kElementwise, elems, kRotaryFlops, 5, 1);
}

void dropout(Layers& out, const std::string& name, int64_t elems, bool kept) {
  elementwise(out, name, LayerKind::kDropout, elems, kDropoutFlops, 2 + kMaskBytesAsElems,
              (kept ? 1 : 0) + kMaskBytesAsElems);
}

void add(Layers& out, const std::string& name, int64_t elems, bool kept) {
  elementwise(out, name, LayerKind::kElementwise, elems, kAddFlops, 3, kept ? 1 : 0);
}

void scale(Layers& out, const std::string& name, int64_t elems) {
  elementwise(out, name, LayerKind::kElementwise, elems, 1, 2, 0);
}

void concat(Layers& out, const std::string& name, int64_t elems, std::vector<int64_t> params,
            bool kept) {
  Layer& l = elementwise(out, name, LayerKind::kElementwise, elems, 0, 2, kept ? 1 : 0);
  l.param_tensors = std::move(params);
  for (size_t i = 0; i < l.param_tensors.size(); ++i) l.param_names.push_back(name);
}

void add_parameter(Layers& out, const std::string& name, int64_t elems, int64_t param_elems) {
  // The parameter is read once per batch, so per sample only the activation is read and written.
  Layer& l = elementwise(out, name, LayerKind::kElementwise, elems, kAddFlops, 2, 1);
  l.param_tensors = {param_elems};
  l.param_names = {name};
}

void linear(Layers& out, const std::string& name, int64_t tokens, int64_t in_features,
            int64_t out_features, bool bias, bool tied, bool kept) {
  Layer& l = append(out, name, LayerKind::kLinear);
  if (!tied) {
    l.param_tensors = {in_features * out_features};
    if (bias) l.param_tensors.push_back(out_features);
    name_weight_bias(l);
  }
  const double t = static_cast<double>(tokens);
  l.fwd_flops = 2.0 * t * static_cast<double>(in_features) * static_cast<double>(out_features);
  l.fwd_bytes = t * static_cast<double>(in_features + out_features);
  l.activation_elems = kept ? t * static_cast<double>(out_features) : 0;
  l.dims = {tokens, in_features, out_features};
}

void layernorm(Layers& out, const std::string& name, int64_t tokens, int64_t dim) {
  Layer& l = append(out, name, LayerKind::kLayerNorm);
  l.param_tensors = {dim, dim};  // weight, bias
  name_weight_bias(l);
  const double n = static_cast<double>(tokens) * static_cast<double>(dim);
  l.fwd_flops = kNormFlops * n;
  l.fwd_bytes = 3 * n;
  l.activation_elems = n + 2.0 * static_cast<double>(tokens);  // output + mean and rstd per row
  l.bwd_flops_factor = 1.0;
  l.dims = {tokens * dim, dim};
}

void rmsnorm(Layers& out, const std::string& name, int64_t tokens, int64_t dim) {
  Layer& l = append(out, name, LayerKind::kLayerNorm);
  l.param_tensors = {dim};  // weight only
  name_weight_bias(l);
  const double n = static_cast<double>(tokens) * static_cast<double>(dim);
  l.fwd_flops = kRmsNormFlops * n;
  l.fwd_bytes = 3 * n;  // read for the mean square, read to scale, write
  l.activation_elems = n + static_cast<double>(tokens);  // output + rstd per row
  l.bwd_flops_factor = 1.0;
  l.dims = {tokens * dim, dim};
}

void embedding(Layers& out, const std::string& name, int64_t tokens, int64_t rows, int64_t dim,
               bool owns_table) {
  Layer& l = append(out, name, LayerKind::kEmbedding);
  if (owns_table) l.param_tensors = {rows * dim};
  name_weight_bias(l);
  const double n = static_cast<double>(tokens) * static_cast<double>(dim);
  // A gather: no arithmetic, but its backward scatter-adds one element per gathered element, so
  // the copy is counted as one FLOP per element with a 1x backward.
  l.fwd_flops = n;
  l.fwd_bytes = 2 * n;
  l.activation_elems = 0;  // backward needs only the token ids; the output feeds an add
  l.bwd_flops_factor = 1.0;
  l.dims = {tokens, rows, dim};
}

void attention_core(Layers& out, const std::string& name, int64_t q_tokens, int64_t kv_tokens,
                    int64_t dim, int64_t heads, bool with_dropout, bool fused, int64_t kv_heads) {
  Layer& l = append(out, name, LayerKind::kAttention);
  const double q = static_cast<double>(q_tokens);
  const double kv = static_cast<double>(kv_tokens);
  const double d = static_cast<double>(dim);
  const double scores = static_cast<double>(heads) * q * kv;  // heads x q x kv probabilities
  const double dropout_flops = with_dropout ? kDropoutFlops : 0;
  // Q K^T and P V: each q*kv*d multiply-accumulates summed over heads. Then scale, mask, softmax.
  l.fwd_flops = 2 * (2 * q * kv * d) + scores * (1 + 1 + kSoftmaxFlops + dropout_flops);
  // Grouped-query attention: keys and values have kv_heads of the heads' width each.
  l.attention_kv_width = kv_heads > 0 && heads > 0
                             ? d * static_cast<double>(kv_heads) / static_cast<double>(heads)
                             : d;
  l.attention_dropout = with_dropout;
  // Backward: both operands of both matmuls are activations, so each matmul is done twice.
  l.bwd_flops_factor = 2.0;
  l.dims = {q_tokens, heads, heads > 0 ? dim / heads : 0, kv_tokens, fused ? 1 : 0};
  set_attention_fused(l, fused);
}

bool set_attention_fused(Layer& l, bool fused) {
  if (l.kind != LayerKind::kAttention || l.dims.size() < 5 || !(l.attention_kv_width > 0))
    return false;
  const double q = static_cast<double>(l.dims[0]);
  const double heads = static_cast<double>(l.dims[1]);
  const double d = heads * static_cast<double>(l.dims[2]);
  const double kv = static_cast<double>(l.dims[3]);
  const double scores = heads * q * kv;
  const bool with_dropout = l.attention_dropout;
  const double qkv_io = 2 * q * d + 2 * kv * l.attention_kv_width;  // read Q, K, V; write out
  l.dims[4] = fused ? 1 : 0;
  if (fused) {
    l.fwd_bytes = qkv_io;
    l.activation_elems = q * d + heads * q;  // output + logsumexp per row
  } else {
    // Write S, scale/mask it (read + write), softmax (read + write), dropout (read + write +
    // mask), read P for the second matmul.
    const double dropout_io = with_dropout ? 2 + kMaskBytesAsElems : 0;
    l.fwd_bytes = qkv_io + scores * (1 + 2 + 2 + dropout_io + 1);
    const double dropout_kept = with_dropout ? 1 + kMaskBytesAsElems : 0;
    l.activation_elems = scores * (1 + dropout_kept) + q * d;  // P (and dropped P), context
  }
  return true;
}

void cross_entropy(Layers& out, const std::string& name, int64_t tokens, int64_t classes) {
  Layer& l = append(out, name, LayerKind::kLoss);
  const double n = static_cast<double>(tokens) * static_cast<double>(classes);
  l.fwd_flops = kSoftmaxFlops * n + static_cast<double>(tokens);  // log-softmax, pick, mean
  l.fwd_bytes = 2 * n;
  l.activation_elems = n;  // log-softmax output, for the gradient softmax - onehot
  l.bwd_flops_factor = 1.0;
  l.dims = {tokens, classes};
}

}  // namespace ddpsim::zoo
