"""Forward FLOPs and activation traffic of one PyTorch call, from the shapes it was traced with.

The conventions are ddpsim's model zoo's (sim/model/layer_builders.h), so an exported
torchvision ResNet-50 and the zoo's ResNet-50 are the same model to the simulator:
- FLOPs: 2 per multiply-accumulate of a convolution or matrix product (bias adds ignored); a few
  per element for element-wise work (the constants below, as the zoo's).
- io: activation elements read and written by an unfused kernel (weights are not included:
  they are read once per batch; the cost model adds them).
- bwd: backward FLOPs of the op. 2x forward for products (gradient of the input and of the weight
  or second operand), 1x for element-wise ops, norms, pooling, softmax.
Every quantity is for the whole traced batch; the exporter divides by the batch size.
"""

import math

import torch

RELU_FLOPS = 1
GELU_FLOPS = 8
TRANSCENDENTAL_FLOPS = 4  # tanh, sigmoid, silu, exp, ...: a handful of operations
NORM_FLOPS = 8  # training norms: mean, variance, normalise, scale, shift
SOFTMAX_FLOPS = 5  # max, subtract, exp, sum, divide
DROPOUT_FLOPS = 2  # random draw compared with p, multiply by mask / (1 - p)
MASK_ELEMS = 0.25  # a one-byte mask next to fp32 activations

KINDS = ("conv", "linear", "batch_norm", "layer_norm", "activation", "pool", "embedding",
         "attention", "softmax", "dropout", "elementwise", "loss")


class Cost:
    """What one call (or a whole layer, once summed) costs."""

    __slots__ = ("kind", "flops", "bwd_flops", "io")

    def __init__(self, kind="elementwise", flops=0.0, bwd_flops=0.0, io=0.0):
        self.kind, self.flops, self.bwd_flops, self.io = kind, float(flops), float(bwd_flops), float(io)

    def add(self, other):
        self.flops += other.flops
        self.bwd_flops += other.bwd_flops
        self.io += other.io

    def weight(self):
        """Which op of a layer names its kind: the most FLOPs, then the most traffic."""
        return (self.flops, self.io)


# Calls that move no data: views, metadata, and shape bookkeeping. Their result is a view of an
# argument (a parameter stays a parameter through them).
VIEW_OPS = {
    "view", "view_as", "reshape", "reshape_as", "flatten", "unflatten", "permute", "transpose",
    "t", "T", "mT", "expand", "expand_as", "squeeze", "unsqueeze", "split", "split_with_sizes",
    "chunk", "tensor_split", "unbind", "narrow", "select", "movedim", "moveaxis", "swapaxes",
    "swapdims", "detach", "as_strided", "unfold", "diagonal", "real", "imag", "alias",
    "requires_grad", "retain_grad", "register_hook", "data",
}

# Calls that create tensors from nothing the model computed (positions, masks): not layers.
FACTORY_OPS = {
    "zeros", "ones", "empty", "full", "arange", "range", "linspace", "randn", "rand", "randint",
    "tensor", "as_tensor", "new_zeros", "new_ones", "new_empty", "new_full", "new_tensor",
    "zeros_like", "ones_like", "empty_like", "full_like", "rand_like", "randn_like", "randint_like",
    "tril", "triu", "eye", "meshgrid", "bernoulli", "multinomial", "normal",
}


def _numel(t):
    return t.numel() if torch.is_tensor(t) else 0


def tensors_in(value):
    """Every tensor in an argument (lists and tuples of tensors included)."""
    if torch.is_tensor(value):
        return [value]
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out.extend(tensors_in(v))
        return out
    if isinstance(value, dict):
        out = []
        for v in value.values():
            out.extend(tensors_in(v))
        return out
    return []


def _arg(args, kwargs, index, name, default=None):
    if len(args) > index:
        return args[index]
    return kwargs.get(name, default)


def normalize(func):
    """(op name, in place?) of a torch function, Tensor method or operator."""
    name = getattr(func, "__name__", None)
    if name is None:
        return None, False
    inplace = False
    if name.startswith("__i") and name.endswith("__") and name not in ("__init__", "__iter__"):
        name, inplace = name[3:-2], True
    elif name.startswith("__r") and name.endswith("__") and name not in ("__repr__", "__reduce__"):
        name = name[3:-2]
    elif name.startswith("__") and name.endswith("__"):
        name = name[2:-2]
    elif name.endswith("_") and not name.startswith("_"):
        name, inplace = name[:-1], True
    return name, inplace


def _product_kind(operands, is_param):
    """A product with a parameter operand is a linear layer; of two activations, attention."""
    return "linear" if any(is_param(t) for t in operands) else "attention"


def _conv(args, kwargs, out, is_param, transposed=False):
    x, w = args[0], _arg(args, kwargs, 1, "weight")
    if not torch.is_tensor(w) or not torch.is_tensor(out):
        return None
    kernel = math.prod(w.shape[2:]) if w.dim() > 2 else 1
    # Conv weight: (out, in/groups, k...): each output element takes in/groups * k MACs.
    # Transposed conv weight: (in, out/groups, k...): each input element feeds out/groups * k.
    macs = _numel(x) * w.shape[1] * kernel if transposed else _numel(out) * w.shape[1] * kernel
    return Cost("conv", 2 * macs, 4 * macs, _numel(x) + _numel(out))


def _linear(args, kwargs, out, is_param):
    x, w = args[0], _arg(args, kwargs, 1, "weight")
    if not torch.is_tensor(w):
        return None
    in_features = w.shape[-1] if w.dim() > 0 else 1
    flops = 2.0 * _numel(out) * in_features
    return Cost(_product_kind([w], is_param), flops, 2 * flops, _numel(x) + _numel(out))


def _matmul(a, b, out, is_param):
    if not torch.is_tensor(a) or not torch.is_tensor(b) or not torch.is_tensor(out):
        return None
    k = a.shape[-1] if a.dim() > 0 else 1
    flops = 2.0 * _numel(out) * k
    io = sum(_numel(t) for t in (a, b) if not is_param(t)) + _numel(out)
    return Cost(_product_kind([a, b], is_param), flops, 2 * flops, io)


def _addmm(args, kwargs, out, is_param):
    # addmm(bias, m1, m2), baddbmm(input, b1, b2), addbmm: the product of the last two.
    return _matmul(args[1], args[2], out, is_param)


def _einsum(args, kwargs, out, is_param):
    equation = args[0]
    operands = list(args[1:])
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = list(operands[0])
    if not isinstance(equation, str) or not all(torch.is_tensor(t) for t in operands):
        return None
    inputs = equation.replace(" ", "").split("->")[0].split(",")
    sizes = {}
    for spec, t in zip(inputs, operands):
        if "." in spec:  # ellipsis: fall back to a product over the largest operand
            return _matmul(operands[0], operands[-1], out, is_param) if len(operands) == 2 else None
        for letter, size in zip(spec, t.shape):
            sizes[letter] = size
    flops = 2.0 * math.prod(sizes.values()) if len(operands) > 1 else float(_numel(operands[0]))
    io = sum(_numel(t) for t in operands if not is_param(t)) + _numel(out)
    return Cost(_product_kind(operands, is_param), flops, 2 * flops, io)


def _sdpa(args, kwargs, out, is_param):
    q, k, v = args[0], args[1], args[2]
    if not all(torch.is_tensor(t) for t in (q, k, v)):
        return None
    rows = _numel(q) // q.shape[-1]  # batch x heads x query tokens
    kv = k.shape[-2]
    scores = float(rows) * kv
    dropout = _arg(args, kwargs, 4, "dropout_p", 0.0) or 0.0
    flops = 2 * (2 * scores * q.shape[-1]) + scores * (1 + SOFTMAX_FLOPS + (DROPOUT_FLOPS if dropout else 0))
    # One fused kernel: reads Q, K, V and writes the context; the scores stay on chip.
    return Cost("attention", flops, 2 * flops, _numel(q) + _numel(k) + _numel(v) + _numel(out))


def _multi_head_attention(args, kwargs, out, is_param):
    """F.multi_head_attention_forward: input projection, attention, output projection."""
    query, key = args[0], args[1]
    heads = _arg(args, kwargs, 4, "num_heads")
    dropout = _arg(args, kwargs, 10, "dropout_p", 0.0) or 0.0
    need_weights = kwargs.get("need_weights", _arg(args, kwargs, 15, "need_weights", True))
    if not torch.is_tensor(query) or not torch.is_tensor(key) or not heads:
        return None
    e = query.shape[-1]
    q_rows = _numel(query) // e  # (L, N, E): L x N query tokens
    kv_rows = _numel(key) // e
    batch = query.shape[1] if query.dim() == 3 else 1
    q_len, kv_len = q_rows // batch, kv_rows // batch
    scores = float(batch) * heads * q_len * kv_len
    projections = 2.0 * e * e * (2 * q_rows + 2 * kv_rows)  # q and out on queries, k and v on keys
    core = 4.0 * scores * (e / heads) + scores * (2 + SOFTMAX_FLOPS + (DROPOUT_FLOPS if dropout else 0))
    io = 2 * q_rows * e + 2 * kv_rows * e + 2 * q_rows * e  # projections in and out
    io += 2 * q_rows * e + 2 * kv_rows * e  # attention reads Q, K, V, writes the context
    if need_weights or dropout:  # the eager path writes and rereads the probabilities
        io += scores * 6
    return Cost("attention", projections + core, 2 * (projections + core), io)


def _norm(args, kwargs, out, is_param, kind):
    n = _numel(args[0])
    return Cost(kind, NORM_FLOPS * n, NORM_FLOPS * n, 3 * n)


def _elementwise(kind, flops_per_elem, io_per_elem=None):
    def rule(args, kwargs, out, is_param):
        n = _numel(out) if torch.is_tensor(out) else sum(_numel(t) for t in tensors_in(out))
        if io_per_elem is None:
            io = sum(_numel(t) for t in tensors_in(list(args) + list(kwargs.values()))
                     if not is_param(t)) + n
        else:
            io = io_per_elem * n
        return Cost(kind, flops_per_elem * n, flops_per_elem * n, io)
    return rule


def _dropout(args, kwargs, out, is_param):
    p = _arg(args, kwargs, 1, "p", 0.5)
    training = _arg(args, kwargs, 2, "training", True)
    if not training or not p or (torch.is_tensor(out) and out is args[0]):
        return Cost("dropout")
    n = _numel(out)
    return Cost("dropout", DROPOUT_FLOPS * n, DROPOUT_FLOPS * n, (2 + MASK_ELEMS) * n)


def _pool(args, kwargs, out, is_param):
    x = args[0]
    n_out = _numel(out if torch.is_tensor(out) else tensors_in(out)[0])
    kernel = _arg(args, kwargs, 1, "kernel_size", 1)
    window = math.prod(kernel) if isinstance(kernel, (list, tuple)) else kernel
    if x.dim() >= 3:
        window = window ** max(1, x.dim() - 2) if not isinstance(kernel, (list, tuple)) else window
    flops = float(window) * n_out
    return Cost("pool", flops, flops, _numel(x) + n_out)


def _adaptive_pool(args, kwargs, out, is_param):
    x = args[0]
    n_out = _numel(out if torch.is_tensor(out) else tensors_in(out)[0])
    flops = float(_numel(x) + n_out)  # sum every input, divide once per output
    return Cost("pool", flops, flops, _numel(x) + n_out)


def _embedding(args, kwargs, out, is_param):
    # A gather; its backward scatter-adds one element per gathered element (zoo convention).
    n = _numel(out)
    return Cost("embedding", n, n, 2 * n)


def _concat(args, kwargs, out, is_param):
    n = _numel(out)
    return Cost("elementwise", 0, 0, 2 * n)


def _cross_entropy(args, kwargs, out, is_param):
    logits = args[0]
    n = _numel(logits)
    rows = n // logits.shape[1] if logits.dim() > 1 else 1
    flops = SOFTMAX_FLOPS * n + rows  # log-softmax, pick, mean
    return Cost("loss", flops, flops, 2 * n)


def _loss(args, kwargs, out, is_param):
    n = _numel(args[0])
    return Cost("loss", 3 * n, 3 * n, 2 * n)


def _reduction(args, kwargs, out, is_param):
    n = _numel(args[0])
    return Cost("elementwise", n, n, n + sum(_numel(t) for t in tensors_in(out)))


def _recurrent(gates):
    """LSTM / GRU / RNN over a sequence: per step and layer, the gate products."""
    def rule(args, kwargs, out, is_param):
        x = args[0]
        weights = [t for t in tensors_in(args[2] if len(args) > 2 else []) if t.dim() == 2]
        macs = 0.0
        rows = _numel(x) // x.shape[-1]  # tokens x batch
        for w in weights:  # weight_ih (gates*h, in) and weight_hh (gates*h, h) of every layer
            macs += rows * w.shape[0] * w.shape[1]
        return Cost("linear", 2 * macs, 4 * macs, _numel(x) + sum(_numel(t) for t in tensors_in(out)))
    return rule


RULES = {
    "conv1d": _conv, "conv2d": _conv, "conv3d": _conv, "convolution": _conv,
    "conv_transpose1d": lambda a, k, o, p: _conv(a, k, o, p, transposed=True),
    "conv_transpose2d": lambda a, k, o, p: _conv(a, k, o, p, transposed=True),
    "conv_transpose3d": lambda a, k, o, p: _conv(a, k, o, p, transposed=True),
    "linear": _linear, "bilinear": _linear,
    "addmm": _addmm, "baddbmm": _addmm, "addbmm": _addmm,
    "mm": lambda a, k, o, p: _matmul(a[0], a[1], o, p),
    "bmm": lambda a, k, o, p: _matmul(a[0], a[1], o, p),
    "matmul": lambda a, k, o, p: _matmul(a[0], a[1], o, p),
    "einsum": _einsum,
    "scaled_dot_product_attention": _sdpa,
    "multi_head_attention_forward": _multi_head_attention,
    "batch_norm": lambda a, k, o, p: _norm(a, k, o, p, "batch_norm"),
    "layer_norm": lambda a, k, o, p: _norm(a, k, o, p, "layer_norm"),
    "group_norm": lambda a, k, o, p: _norm(a, k, o, p, "layer_norm"),
    "instance_norm": lambda a, k, o, p: _norm(a, k, o, p, "layer_norm"),
    "rms_norm": lambda a, k, o, p: _norm(a, k, o, p, "layer_norm"),
    "local_response_norm": lambda a, k, o, p: _norm(a, k, o, p, "layer_norm"),
    "softmax": _elementwise("softmax", SOFTMAX_FLOPS, 2),
    "log_softmax": _elementwise("softmax", SOFTMAX_FLOPS, 2),
    "softmin": _elementwise("softmax", SOFTMAX_FLOPS, 2),
    "dropout": _dropout, "dropout1d": _dropout, "dropout2d": _dropout, "dropout3d": _dropout,
    "alpha_dropout": _dropout, "feature_alpha_dropout": _dropout,
    "max_pool1d": _pool, "max_pool2d": _pool, "max_pool3d": _pool,
    "max_pool1d_with_indices": _pool, "max_pool2d_with_indices": _pool,
    "max_pool3d_with_indices": _pool, "avg_pool1d": _pool, "avg_pool2d": _pool,
    "avg_pool3d": _pool, "lp_pool1d": _pool, "lp_pool2d": _pool,
    "adaptive_avg_pool1d": _adaptive_pool, "adaptive_avg_pool2d": _adaptive_pool,
    "adaptive_avg_pool3d": _adaptive_pool, "adaptive_max_pool1d": _adaptive_pool,
    "adaptive_max_pool2d": _adaptive_pool, "adaptive_max_pool3d": _adaptive_pool,
    "embedding": _embedding, "embedding_bag": _embedding,
    "cat": _concat, "concat": _concat, "concatenate": _concat, "stack": _concat,
    "hstack": _concat, "vstack": _concat, "pad": _concat, "repeat": _concat,
    "tile": _concat, "repeat_interleave": _concat, "roll": _concat, "flip": _concat,
    "clone": _concat, "copy": _concat, "index_select": _concat, "gather": _concat,
    "cross_entropy": _cross_entropy, "nll_loss": _loss, "mse_loss": _loss, "l1_loss": _loss,
    "smooth_l1_loss": _loss, "huber_loss": _loss, "binary_cross_entropy": _loss,
    "binary_cross_entropy_with_logits": _loss, "kl_div": _loss,
    "sum": _reduction, "mean": _reduction, "var": _reduction, "std": _reduction,
    "amax": _reduction, "amin": _reduction, "norm": _reduction, "logsumexp": _reduction,
    "prod": _reduction,
    "lstm": _recurrent(4), "gru": _recurrent(3), "rnn_tanh": _recurrent(1),
    "rnn_relu": _recurrent(1),
}

for _name in ("relu", "relu6", "hardtanh", "leaky_relu", "threshold", "clamp", "clamp_min",
              "clamp_max", "clip", "abs", "neg", "sign", "prelu", "rrelu", "celu"):
    RULES[_name] = _elementwise("activation", RELU_FLOPS, 2)
RULES["gelu"] = _elementwise("activation", GELU_FLOPS, 2)
for _name in ("tanh", "sigmoid", "silu", "hardswish", "hardsigmoid", "elu", "selu", "mish",
              "softplus", "softsign", "logsigmoid", "glu", "tanhshrink"):
    RULES[_name] = _elementwise("activation", TRANSCENDENTAL_FLOPS, 2)
for _name in ("exp", "log", "rsqrt", "sqrt", "pow", "erf", "sin", "cos", "reciprocal", "square"):
    RULES[_name] = _elementwise("elementwise", TRANSCENDENTAL_FLOPS)
# add, sub, mul, div, comparisons, where, masked_fill: one operation per output element, traffic
# = every activation operand read plus the output written (the default rule).


def cost_of(name, args, kwargs, out, is_param):
    """The cost of one call, or None when `name` is unknown (the caller uses the default)."""
    rule = RULES.get(name)
    if rule is None:
        return None
    try:
        return rule(args, kwargs, out, is_param)
    except (IndexError, AttributeError, TypeError, ValueError):
        return None


def default_cost(args, kwargs, out, is_param):
    """An unknown call that made a new tensor: one operation per output element."""
    return _elementwise("elementwise", 1)(args, kwargs, out, is_param)
