"""Exports a PyTorch model as a ddpsim model file (format: docs/model-import.md).

The structure, FLOPs and activations come from one forward pass on the `meta` device (shapes
only, no arithmetic, any batch at no cost); the parameter gradients' ready order, which decides
DDP's buckets, from one real forward and backward at batch 2 with the same hooks DDP uses
(post-hooks on each parameter's AccumulateGrad node).
"""

import ast
import contextlib
import importlib
import importlib.util
import math
import os
import sys

import torch
import torch.nn as nn

import ddpsim_yaml
import model_trace

DTYPES = {
    "float32": torch.float32, "float": torch.float32, "fp32": torch.float32,
    "float16": torch.float16, "fp16": torch.float16, "half": torch.float16,
    "bfloat16": torch.bfloat16, "bf16": torch.bfloat16,
    "float64": torch.float64, "int64": torch.int64, "long": torch.int64,
    "int32": torch.int32, "int": torch.int32, "bool": torch.bool,
}
DTYPE_NAMES = {torch.float32: "float32", torch.float16: "float16", torch.bfloat16: "bfloat16",
               torch.float64: "float64", torch.int64: "int64", torch.int32: "int32",
               torch.bool: "bool", torch.int8: "int8", torch.uint8: "uint8"}


class ExportError(Exception):
    """A mistake in the exporter's arguments or the user's model, said in one line."""


# Here, not in ddpsim_torch.py, so that the subcommands ddpsim_torch.py loads (ddp_step.py,
# plain_step.py) need not import it back: no import cycle.
def parse_kwargs(items):
    """--arg key=value, the value a Python literal (num_classes=10, weights=None) or a string."""
    out = {}
    for item in items or []:
        if "=" not in item:
            raise ExportError("--arg %s: expected KEY=VALUE" % item)
        key, value = item.split("=", 1)
        try:
            out[key] = ast.literal_eval(value)
        except (ValueError, SyntaxError):
            out[key] = value
    return out


# ---------------------------------------------------------------- the user's model and inputs

def load_factory(spec):
    """`package.module:callable` or `path/to/file.py:callable`."""
    if ":" not in spec:
        raise ExportError("expected MODULE:FACTORY (e.g. torchvision.models:resnet50 or "
                          "my_model.py:build), got '%s'" % spec)
    module_name, attr = spec.rsplit(":", 1)
    if module_name.endswith(".py") or os.path.sep in module_name:
        path = os.path.abspath(module_name)
        if not os.path.isfile(path):
            raise ExportError("model file not found: %s" % module_name)
        sys.path.insert(0, os.path.dirname(path))
        name = os.path.splitext(os.path.basename(path))[0]
        loader = importlib.util.spec_from_file_location(name, path)
        module = importlib.util.module_from_spec(loader)
        sys.modules[name] = module
        loader.loader.exec_module(module)
    else:
        try:
            module = importlib.import_module(module_name)
        except ImportError as e:
            raise ExportError("cannot import '%s': %s" % (module_name, e))
    factory = module
    for part in attr.split("."):
        if not hasattr(factory, part):
            raise ExportError("'%s' has no attribute '%s'" % (module_name, attr))
        factory = getattr(factory, part)
    if not callable(factory):
        raise ExportError("'%s' is not callable" % spec)
    return factory


class InputSpec:
    """--input SHAPE[:DTYPE[:HIGH]], optionally NAME=... for a keyword argument.
    3x224x224 is an fp32 image; 128:int64:50257 are 128 token ids below 50257."""

    def __init__(self, text):
        self.text = text
        self.keyword = None
        body = text
        if "=" in body:
            self.keyword, body = body.split("=", 1)
        parts = body.split(":")
        try:
            self.shape = [int(d) for d in parts[0].split("x")]
        except ValueError:
            raise ExportError("--input %s: expected a shape like 3x224x224 or 128:int64:50257" % text)
        if any(d < 1 for d in self.shape):
            raise ExportError("--input %s: every dimension must be >= 1" % text)
        dtype = parts[1] if len(parts) > 1 else "float32"
        if dtype not in DTYPES:
            raise ExportError("--input %s: unknown dtype '%s'; allowed: %s" %
                              (text, dtype, ", ".join(sorted(DTYPES))))
        self.dtype = DTYPES[dtype]
        self.high = int(parts[2]) if len(parts) > 2 else 2
        if len(parts) > 3 or self.high < 1:
            raise ExportError("--input %s: expected SHAPE[:DTYPE[:HIGH]] with HIGH >= 1" % text)

    @property
    def is_tokens(self):
        return not self.dtype.is_floating_point and self.dtype != torch.bool

    def make(self, batch, device):
        shape = [batch] + self.shape
        if device == "meta" or str(device) == "meta":
            return torch.empty(shape, dtype=self.dtype, device="meta")
        if self.dtype.is_floating_point:
            return torch.randn(shape, dtype=self.dtype, device=device)
        if self.dtype == torch.bool:
            return torch.ones(shape, dtype=torch.bool, device=device)
        return torch.randint(0, self.high, shape, dtype=self.dtype, device=device)


def make_inputs(specs, batch, device):
    args, kwargs = [], {}
    for s in specs:
        t = s.make(batch, device)
        if s.keyword:
            kwargs[s.keyword] = t
        else:
            args.append(t)
    return args, kwargs


@contextlib.contextmanager
def skipped_init():
    """Builds a model without filling its weights: torch.nn.init's functions, and every alias of
    them a loaded module imported, do nothing. For tracing shapes only (a 600M-parameter
    torchvision model then builds in a second instead of tens)."""
    originals = {}
    for name in dir(torch.nn.init):
        f = getattr(torch.nn.init, name)
        if callable(f) and name.endswith("_") and not name.startswith("_"):
            originals[f] = lambda tensor, *a, **k: tensor
    patched = []
    for module in list(sys.modules.values()):
        d = getattr(module, "__dict__", None)
        if not d:
            continue
        for attr, value in list(d.items()):
            try:
                replacement = originals.get(value)
            except TypeError:  # unhashable
                continue
            if replacement is not None:
                patched.append((module, attr, value))
                setattr(module, attr, replacement)
    try:
        yield
    finally:
        for module, attr, value in patched:
            setattr(module, attr, value)


def build_model(factory, factory_kwargs=None, skip_init=False):
    with skipped_init() if skip_init else contextlib.nullcontext():
        model = factory(**(factory_kwargs or {}))
    if not isinstance(model, nn.Module):
        raise ExportError("the factory returned %s, not a torch.nn.Module" % type(model).__name__)
    return model


# ---------------------------------------------------------------- the loss

def _logits(output):
    if isinstance(output, dict):  # Hugging Face ModelOutput and plain dicts
        for key in ("logits", "last_hidden_state"):
            if torch.is_tensor(output.get(key)):
                return [output[key]]
        return [v for v in output.values() if torch.is_tensor(v)][:1]
    if isinstance(output, (list, tuple)):
        return [t for t in output if torch.is_tensor(t)]
    return [output] if torch.is_tensor(output) else []


def compute_loss(output, mode):
    """The training loss of one forward pass.
    auto: the model's own `loss` if it returns one; else cross-entropy on every (batch, classes)
    or (batch, tokens, vocabulary) floating output (random targets), summed (Inception's and
    GoogLeNet's auxiliary heads included); else the sum of the outputs.
    output: the model returns its loss. cross-entropy / sum: as said, on every output."""
    if mode in ("auto", "output"):
        loss = output.get("loss") if isinstance(output, dict) else getattr(output, "loss", None)
        if torch.is_tensor(loss):
            return loss
        if mode == "output":
            if torch.is_tensor(output) and output.numel() == 1:
                return output
            raise ExportError("--loss output: the model returned no scalar loss")
    outputs = _logits(output)
    if not outputs:
        raise ExportError("the model returned no tensor to compute a loss from")
    total = None
    for out in outputs:
        classes = out.dim() in (2, 3) and out.is_floating_point() and mode != "sum"
        if classes:
            flat = out.reshape(-1, out.shape[-1])
            target = torch.randint(0, out.shape[-1], (flat.shape[0],), device=out.device)
            term = nn.functional.cross_entropy(flat, target)
        else:
            if mode == "cross-entropy":
                raise ExportError("--loss cross-entropy needs (batch, classes) or (batch, tokens, "
                                  "vocabulary) outputs, got shape %s" % list(out.shape))
            term = out.float().sum()
        total = term if total is None else total + term
    return total


# ---------------------------------------------------------------- tracing

class Exported:
    def __init__(self):
        self.name = ""
        self.description = ""
        self.sample_unit = "samples"
        self.sequence_length = 0
        self.batch = 1
        self.layers = []  # model_trace.Layer, empty ones dropped
        self.params = []  # (name, shape, dtype name, trainable) in model.parameters() order
        self.unused = []  # parameter names no layer used
        self.gradient_order = []  # trainable parameter names in gradient-ready order
        self.source = {}


def to_meta(model):
    """Moves parameters and buffers to the meta device keeping shared ones shared (Module.to
    makes a new Parameter per module when the device type changes, which unties tied weights)."""
    memo = {}
    for module in model.modules():
        for store in (module._parameters, module._buffers):
            for key, t in store.items():
                if t is None:
                    continue
                if id(t) not in memo:
                    meta = torch.empty_like(t, device="meta")
                    if isinstance(t, nn.Parameter):
                        meta = nn.Parameter(meta, requires_grad=t.requires_grad)
                    memo[id(t)] = meta
                store[key] = memo[id(t)]
    return model


def trace_structure(model, specs, batch, loss_mode):
    """One forward pass on the meta device: the layers with their costs for `batch` samples."""
    model = to_meta(model)
    model.train()
    tracer = model_trace.Tracer(model)
    args, kwargs = make_inputs(specs, batch, "meta")
    for t in args + list(kwargs.values()):
        tracer.inputs.add(id(t))
    try:
        with tracer.saved_tensors(), tracer:
            output = model(*args, **kwargs)
            tracer.begin_group("loss")
            compute_loss(output, loss_mode)
            tracer.end_group()
    finally:
        tracer.remove()
    return tracer


def gradient_ready_order(model, specs, loss_mode, device="cpu", batch=2):
    """Names of the trainable parameters in the order backward finishes their gradients: the
    order DDP's reducer sees them (its autograd hooks are post-hooks of the same AccumulateGrad
    nodes), from which it rebuilds its buckets after the first iteration."""
    model = model.to(device)
    model.train()
    names = {id(p): n for n, p in model.named_parameters()}
    order, accumulators = [], []
    for p in model.parameters():
        if not p.requires_grad:
            continue
        acc = p.expand_as(p).grad_fn.next_functions[0][0]
        acc.register_hook(lambda *unused, name=names[id(p)]: order.append(name))
        accumulators.append(acc)  # the node must outlive the pass for the hook to stay
    args, kwargs = make_inputs(specs, batch, device)
    compute_loss(model(*args, **kwargs), loss_mode).backward()
    return order


def export_model(factory, specs, batch, name, loss_mode="auto", factory_kwargs=None,
                 order=True, device="cpu", description=None):
    if not specs:
        raise ExportError("give the model's input with --input (e.g. 3x224x224)")
    model = build_model(factory, factory_kwargs, skip_init=True)
    e = Exported()
    e.name = name
    e.batch = batch
    for pname, p in model.named_parameters():
        e.params.append((pname, list(p.shape), DTYPE_NAMES.get(p.dtype, str(p.dtype)),
                         p.requires_grad))
    if order:
        with torch.no_grad():
            for p in model.parameters():  # the values do not change the order; NaN-free is faster
                p.zero_()
        e.gradient_order = gradient_ready_order(model, specs, loss_mode, device)
    tracer = trace_structure(model, specs, batch, loss_mode)
    claimed = set()
    for layer in tracer.layers:
        if not layer.is_empty():
            e.layers.append(layer)
            claimed.update(layer.params)
    e.unused = [n for n, _, _, _ in e.params if n not in claimed]
    tokens = [s for s in specs if s.is_tokens]
    images = [s for s in specs if s.dtype.is_floating_point and len(s.shape) == 3]
    if tokens:
        e.sample_unit, e.sequence_length = "sequences", tokens[0].shape[-1]
    elif images:
        e.sample_unit = "images"
    e.description = description or "%s, input %s (exported from PyTorch %s)" % (
        getattr(factory, "__name__", name), " ".join(s.text for s in specs), torch.__version__)
    return e


# ---------------------------------------------------------------- the model file

def model_file_text(e):
    b = ddpsim_yaml.Block()
    b.comment("ddpsim model file, exported from PyTorch by calibrate/pytorch/ddpsim_torch.py.\n"
              "Format: docs/model-import.md. Per sample: fwd_flops (FLOPs), io_elems (activation\n"
              "elements read + written), saved_elems (elements kept for backward); bytes are\n"
              "elements x the activation dtype of the scenario's training.precision.")
    b.key("format", 1)
    b.key("name", e.name)
    b.key("description", e.description)
    b.key("sample_unit", e.sample_unit)
    b.key("sequence_length", e.sequence_length)
    b.key("source", e.source)
    total = sum(math.prod(shape) for _, shape, _, _ in e.params)
    b.key("parameters", total, comment="sum(p.numel() for p in model.parameters())")
    info = {n: (shape, dtype, trainable) for n, shape, dtype, trainable in e.params}
    if e.gradient_order:
        b.comment("Trainable parameters in the order backward finishes their gradients (DDP "
                  "buckets\nthem in this order after its first iteration).")
        b.open("gradient_order")
        for n in e.gradient_order:
            b.lines.append("  - " + ddpsim_yaml.scalar(n))
    b.open("layers")
    layers = list(e.layers)
    for layer in layers:
        entry = {"name": layer.name, "kind": layer.kind, "module": layer.module_type}
        params = []
        for n in layer.params:
            shape, dtype, trainable = info[n]
            p = {"name": n, "shape": shape, "dtype": dtype}
            if not trainable:
                p["trainable"] = False
            params.append(p)
        if params:
            entry["params"] = params
        if layer.tied:
            entry["tied"] = layer.tied
        cost = layer.cost
        entry["fwd_flops"] = cost.flops / e.batch
        entry["io_elems"] = cost.io / e.batch
        entry["saved_elems"] = layer.saved_elems / e.batch
        entry["bwd_flops_factor"] = round(cost.bwd_flops / cost.flops, 6) if cost.flops > 0 else 1
        b.item(entry, indent=2, nested=("params",))
    if e.unused:
        # Parameters the forward pass never read: DDP still buckets them (and, without
        # find_unused_parameters, waits for them forever); list them so the counts add up.
        entry = {"name": "unused_parameters", "kind": "elementwise", "module": "none",
                 "params": [dict({"name": n, "shape": info[n][0], "dtype": info[n][1]},
                                 **({} if info[n][2] else {"trainable": False}))
                            for n in e.unused],
                 "fwd_flops": 0, "io_elems": 0, "saved_elems": 0, "bwd_flops_factor": 1}
        b.item(entry, indent=2, nested=("params",))
    return b.text()
