"""Marks a model's layers in a torch.profiler trace, for `ddpsim calibrate --import-torch-trace`.

    from annotate import TraceAnnotator          # calibrate/pytorch on sys.path
    annotator = TraceAnnotator(model)            # the exporter's layer names
    with torch.profiler.profile(activities=[...]) as prof:
        for step in range(n):
            with annotator.step():
                loss = loss_fn(model(x), y)
                loss.backward()
                optimizer.step(); optimizer.zero_grad()
    prof.export_chrome_trace("trace.json")
    annotator.remove()

Each layer gets two zero-length record_function ranges: `ddpsim:fwd:<layer>` when its forward
ends and `ddpsim:bwd:<layer>` just before its backward starts (a pre-hook on the autograd node
that made its output), and each step a range `ddpsim:step`. The importer measures a layer's
forward from the previous mark to its own and its backward from its mark to the next one, as
the exporter's --time does; the loss (computed outside the model) is what lies between the
model's last forward mark and the first backward mark. Names are those of the model file the
exporter writes for the same model, so the imported profile's layers match it.
Works with PyTorch 1.13 (its legacy profiler) and 2.x (Kineto, CPU and CUDA).
"""

import contextlib

import torch
from torch.autograd.profiler import record_function

import model_trace


def _instant(name):
    with record_function(name):
        pass


class TraceAnnotator:
    def __init__(self, model):
        self.model = model
        self.depth = 0
        # The function mode runs only inside the model's forward: the loss, the optimizer and
        # the user's own code around it make no layers. These hooks go first, so that the
        # tracer's own hooks on the model run inside the mode.
        self.handles = [model.register_forward_pre_hook(self._enter),
                        model.register_forward_hook(self._exit)]
        self.tracer = model_trace.Tracer(model, record=False, mark=self._forward_end)

    def _enter(self, module, args):
        self.depth += 1
        if self.depth == 1:
            self.tracer.reset()
            self.tracer.__enter__()

    def _exit(self, module, args, output):
        self.depth -= 1
        if self.depth == 0:
            self.tracer.__exit__(None, None, None)

    def _forward_end(self, name, outputs):
        _instant("ddpsim:fwd:" + name)
        nodes = {t.grad_fn for t in outputs if t.requires_grad and t.grad_fn is not None}
        for node in nodes:
            node.register_prehook(lambda grads, name=name: _instant("ddpsim:bwd:" + name))

    @contextlib.contextmanager
    def step(self):
        with record_function("ddpsim:step"):
            yield

    def remove(self):
        for h in self.handles:
            h.remove()
        self.tracer.remove()
