"""Turns one forward pass of a PyTorch model into ddpsim's ordered list of layers.

A layer is either one call of a leaf module (a module without children, or one whose forward
uses its children's parameters without calling them, like nn.MultiheadAttention), or a run of
consecutive functional calls made directly in a parent module's forward (ResNet's
`out += identity`, ViT's `x + self.pos_embedding`, a hand-written attention's matmul/softmax).
Every call is seen through a TorchFunctionMode (torch.overrides, public since PyTorch 1.13),
module boundaries through forward hooks, and the tensors autograd keeps for backward through
saved_tensors_hooks. None of these was removed in PyTorch 2.x.

A parameter belongs to the first layer that uses it (its module's first call, or the first
functional call that reads it); a later user lists it as tied. Parameters are listed in
model.parameters() order, the order DDP registers them.
"""

import collections

import torch
import torch.nn as nn
from torch.overrides import TorchFunctionMode

import op_costs

# Modules whose forward reads their children's parameters without calling the children.
ATOMIC_MODULES = (nn.MultiheadAttention,)

# Ops whose result carries no layer: metadata, non-tensors, views (see op_costs).
_METADATA = {"size", "dim", "numel", "shape", "dtype", "device", "is_contiguous", "data_ptr",
             "element_size", "stride", "storage_offset", "item", "tolist", "len", "bool",
             "format", "repr", "iter", "hash", "get_device", "get", "nelement", "ndimension",
             "is_floating_point", "is_complex", "untyped_storage", "storage", "grad_fn",
             "requires_grad", "is_leaf", "layout", "names", "ndim", "set_", "copy_", "record_stream"}


def module_kind(module):
    """The layer kind a module's class names, or None to decide from its operations."""
    if isinstance(module, nn.modules.conv._ConvNd):
        return "conv"
    if isinstance(module, nn.Linear):
        return "linear"
    if isinstance(module, nn.modules.batchnorm._BatchNorm):
        return "batch_norm"
    if isinstance(module, (nn.LayerNorm, nn.GroupNorm, nn.modules.instancenorm._InstanceNorm,
                           nn.LocalResponseNorm)):
        return "layer_norm"
    if isinstance(module, (nn.Embedding, nn.EmbeddingBag)):
        return "embedding"
    if isinstance(module, nn.MultiheadAttention):
        return "attention"
    if isinstance(module, (nn.modules.pooling._MaxPoolNd, nn.modules.pooling._AvgPoolNd,
                           nn.modules.pooling._AdaptiveAvgPoolNd,
                           nn.modules.pooling._AdaptiveMaxPoolNd)):
        return "pool"
    if isinstance(module, (nn.Softmax, nn.LogSoftmax, nn.Softmin)):
        return "softmax"
    if isinstance(module, nn.modules.dropout._DropoutNd):
        return "dropout"
    if isinstance(module, nn.modules.loss._Loss):
        return "loss"
    if type(module).__module__ == "torch.nn.modules.activation":
        return "activation"
    name = type(module).__name__
    if "BatchNorm" in name:
        return "batch_norm"
    if "Norm" in name:
        return "layer_norm"  # RMSNorm and friends, written by hand
    return None


class Layer:
    """One layer of the exported model, with its cost summed over the calls it made."""

    def __init__(self, name, module_type, kind_hint, parent=None):
        self.name = name
        self.module_type = module_type  # class name, or "functional"
        self.kind_hint = kind_hint
        self.parent = parent  # functional layers: the module whose forward made the calls
        self.cost = op_costs.Cost()
        self.heaviest = None  # the op that names the kind when the module does not
        self.ops = []
        self.params = []  # names this layer owns
        self.tied = []  # names owned by an earlier layer that this one reads
        self.saved_elems = 0.0  # elements kept for backward, counted at their producer
        self.outputs = []  # tensors whose gradient marks this layer's backward (timing)
        self.index = -1

    def add(self, name, cost):
        self.ops.append(name)
        self.cost.add(cost)
        if self.heaviest is None or cost.weight() > self.heaviest.weight():
            self.heaviest = cost

    @property
    def kind(self):
        if self.kind_hint:
            return self.kind_hint
        return self.heaviest.kind if self.heaviest is not None else "elementwise"

    def is_empty(self):
        return (not self.params and not self.tied and self.cost.flops == 0 and self.cost.io == 0
                and self.saved_elems == 0)


class Tracer(TorchFunctionMode):
    """Records layers while a forward pass runs inside `with tracer:`.

    mark: optional callback(layer_name, outputs) called when a layer's forward ends; the timing
    passes use it. `record=False` skips the cost bookkeeping (timing runs)."""

    def __init__(self, model, record=True, mark=None):
        super().__init__()
        self.model = model
        self.record = record
        self.mark = mark
        self.param_names = {}
        for name, p in model.named_parameters():
            self.param_names[id(p)] = name
        self.param_order = {name: i for i, (name, _) in enumerate(model.named_parameters())}
        # Buffers (running statistics, step counters, causal masks) are state, not activations.
        self.buffer_ids = {id(b) for b in model.buffers()}
        self.handles = []
        self.reset()
        self._install(model)

    def reset(self):
        """Forgets the pass so far: the next forward pass names its layers from scratch."""
        self.derived = {}  # id(view or cast of a parameter) -> parameter name
        self.keep = []  # tensors kept alive so that their ids stay unique during the trace
        self.layers = []
        self.calls = collections.Counter()
        self.leaf_depth = 0
        self.leaf = None
        self.parents = [""]
        self.group = None  # the functional layer being filled
        self.claimed = set()
        self.producer = {}  # id(tensor) -> index of the layer that made it
        self.inputs = set()
        self.saved_seen = set()

    # ---------------------------------------------------------------- module hooks

    def _install(self, model):
        names = {id(m): n for n, m in model.named_modules()}
        skip = set()
        for module in model.modules():
            if id(module) in skip:
                continue
            path = names[id(module)]
            children = list(module.children())
            if not children or isinstance(module, ATOMIC_MODULES):
                for sub in module.modules():
                    if sub is not module:
                        skip.add(id(sub))
                self.handles.append(module.register_forward_pre_hook(self._leaf_pre(path, module)))
                self.handles.append(module.register_forward_hook(self._leaf_post(module)))
            else:
                self.handles.append(module.register_forward_pre_hook(self._parent_pre(path)))
                self.handles.append(module.register_forward_hook(self._parent_post()))

    def remove(self):
        for h in self.handles:
            h.remove()
        self.handles = []

    def _unique(self, name):
        self.calls[name] += 1
        n = self.calls[name]
        return name if n == 1 else "%s#%d" % (name, n)

    def _parent_pre(self, path):
        def hook(module, args):
            self._close_group()
            self.parents.append(path)
        return hook

    def _parent_post(self):
        def hook(module, args, output):
            self._close_group()
            self.parents.pop()
        return hook

    def _leaf_pre(self, path, module):
        kind = module_kind(module)
        type_name = type(module).__name__

        def hook(mod, args):
            self._close_group()
            self.leaf_depth += 1
            if self.leaf_depth == 1:
                self.leaf = self._open(self._unique(path or type_name), type_name, kind)
        return hook

    def _leaf_post(self, module):
        def hook(mod, args, output):
            if self.leaf_depth == 1:
                layer = self.leaf
                for p in module.parameters():
                    self._use_param(layer, self.param_names.get(id(p)))
                self._finish(layer, output)
                self.leaf = None
            self.leaf_depth -= 1
        return hook

    # ---------------------------------------------------------------- layers

    def _open(self, name, module_type, kind, parent=None):
        layer = Layer(name, module_type, kind, parent)
        layer.index = len(self.layers)
        self.layers.append(layer)
        return layer

    def _use_param(self, layer, name):
        if name is None:
            return
        if name in self.claimed:
            if name not in layer.params and name not in layer.tied:
                layer.tied.append(name)
        else:
            self.claimed.add(name)
            layer.params.append(name)

    def _finish(self, layer, output):
        layer.params.sort(key=lambda n: self.param_order[n])
        layer.outputs = op_costs.tensors_in(output)
        for t in layer.outputs:
            self.producer.setdefault(id(t), layer.index)
            self.keep.append(t)
        if self.mark is not None:
            self.mark(layer.name, layer.outputs)

    def _close_group(self):
        group, self.group = self.group, None
        if group is None:
            return
        if group.name is None:  # nothing in it was a layer's work
            self.layers.pop()
            if self.layers:
                self.layers[-1].saved_elems += group.saved_elems
            return
        self._finish(group, group.outputs)

    def begin_group(self, name):
        """Starts a functional layer with a fixed name (the loss, computed outside the model)."""
        self._close_group()
        self.group = self._open(self._unique(name), "functional", None, parent=self.parents[-1])
        self.group.fixed = True

    def end_group(self):
        self._close_group()

    def current_index(self):
        layer = self.leaf or self.group
        return layer.index if layer is not None else None

    # ---------------------------------------------------------------- parameters

    def param_of(self, t):
        """The parameter `t` is (or is a view or cast of), else None."""
        if not torch.is_tensor(t):
            return None
        name = self.param_names.get(id(t)) or self.derived.get(id(t))
        base = getattr(t, "_base", None)
        if name is None and base is not None:
            name = self.param_names.get(id(base)) or self.derived.get(id(base))
        return name

    def is_param(self, t):
        return self.param_of(t) is not None

    # ---------------------------------------------------------------- every call

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        name, inplace = op_costs.normalize(func)
        if name is None or name in _METADATA:
            return func(*args, **kwargs)
        if self.leaf_depth > 0:
            out = func(*args, **kwargs)
            if self.record:
                self._account(self.leaf, name, inplace, args, kwargs, out)
            return out
        if name in op_costs.VIEW_OPS or name in op_costs.FACTORY_OPS:
            out = func(*args, **kwargs)
            self._derive(args, kwargs, out)
            return out
        # A functional call in a parent's forward joins the open functional layer of that parent,
        # or opens one before the call, so that the tensors it saves for backward count there.
        if self.group is None or self.group.parent != self.parents[-1]:
            self._close_group()
            self.group = self._open(None, "functional", None, parent=self.parents[-1])
        group = self.group
        out = func(*args, **kwargs)
        if self._account(group, name, inplace, args, kwargs, out):
            if group.name is None:
                prefix = group.parent + "." if group.parent else ""
                group.name = self._unique(prefix + name)
            group.outputs = op_costs.tensors_in(out)
        return out

    def _derive(self, args, kwargs, out):
        """A view or cast of a parameter is still that parameter."""
        for t in op_costs.tensors_in(list(args) + list(kwargs.values())):
            source = self.param_of(t)
            if source:
                for o in op_costs.tensors_in(out):
                    self.derived[id(o)] = source
                    self.keep.append(o)
                return

    def _account(self, layer, name, inplace, args, kwargs, out):
        """Adds one call to `layer`; False when the call did no activation work."""
        outs = op_costs.tensors_in(out)
        if not outs:
            return False
        inputs = op_costs.tensors_in(list(args) + list(kwargs.values()))
        if all(self.is_param(t) or id(t) in self.buffer_ids for t in inputs):
            self._derive(args, kwargs, out)  # a factory, or arithmetic on parameters alone
            return False
        returned_input = len(outs) == 1 and any(outs[0] is t for t in inputs)
        if returned_input and not inplace and not kwargs.get("inplace", False):
            return False  # e.g. dropout with p = 0, or .to() of the dtype it has
        cost = op_costs.cost_of(name, args, kwargs, out, self.is_param)
        if cost is None:
            if all(t._is_view() for t in outs):
                self._derive(args, kwargs, out)
                return False
            cost = op_costs.default_cost(args, kwargs, out, self.is_param)
        if self.leaf_depth == 0:
            for t in inputs:
                self._use_param(layer, self.param_of(t))
        layer.add(name, cost)
        for t in outs:
            self.producer.setdefault(id(t), layer.index)
            self.keep.append(t)
        return True

    # ---------------------------------------------------------------- saved activations

    def pack(self, t):
        if not self.record or not torch.is_tensor(t):
            return t
        base = t._base if getattr(t, "_base", None) is not None else t
        key = id(base)
        if key in self.saved_seen or key in self.inputs or self.is_param(base) or self.is_param(t):
            return t
        self.saved_seen.add(key)
        self.keep.append(base)
        index = self.producer.get(key)
        if index is None:
            index = self.current_index()
        if index is not None:
            # Elements as fp32 activations: a bool mask is a quarter, int64 indices are two.
            self.layers[index].saved_elems += base.numel() * base.element_size() / 4.0
        return t

    @staticmethod
    def unpack(t):
        return t

    def saved_tensors(self):
        return torch.autograd.graph.saved_tensors_hooks(self.pack, self.unpack)

