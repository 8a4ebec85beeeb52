"""What the framework runs, for --time on a GPU: its own choices, and marks that time the GPU.

Choices: the settings a user's training script makes and that change which kernels PyTorch
launches. channels_last turns a convolution network's tensors into NHWC, on which cuDNN runs
its implicit-GEMM engines (NCHW goes through transposes or the legacy kernels);
cudnn.benchmark lets cuDNN time its algorithms once per shape and keep the fastest; a fused
optimizer updates every parameter in a few kernels instead of several per tensor; rotating among
several input batches keeps the first layers from reading an input the L2 cache still holds.
The training step that --time marks and the plain step it is checked against both run with the
same choices.

HeadStart: the marks of a training step (a CUDA event at every layer boundary, recorded from
Python hooks) cost host time, and when the host launches slower than the GPU runs, the events
time the GPU waiting for Python, not the layers (on an H200, ResNet-50's marked layers added up
to 44.4 ms against a 29.3 ms plain step). Each marked step therefore starts behind a GPU sleep
(torch.cuda._sleep) longer than the host takes to launch the whole step: the host queues every
kernel and every mark while the GPU sleeps, then the GPU runs them back to back, and the
events time the kernels as the framework launched them, with the GPU's own gaps between
kernels but none of the host's. Whether the host really finished first is checked on every step
(the sleep's end event has not completed when the last mark is queued); a step where it did not
is counted, and the sleep doubles for the next one.
"""

import time

import torch

import export


class Choices:
    """The framework settings of one --time run (all off: PyTorch's defaults)."""

    def __init__(self, channels_last=False, cudnn_benchmark=False, fused_optimizer=False,
                 rotate=1):
        if rotate < 1:
            raise export.ExportError("--rotate-inputs must be >= 1, got %d" % rotate)
        self.channels_last = channels_last
        self.cudnn_benchmark = cudnn_benchmark
        self.fused_optimizer = fused_optimizer
        self.rotate = rotate

    def describe(self):
        on = [n for n, v in (("channels_last", self.channels_last),
                             ("cudnn.benchmark", self.cudnn_benchmark),
                             ("fused optimizer", self.fused_optimizer)) if v]
        return "%s; %d input batch%s rotated" % (", ".join(on) or "PyTorch defaults",
                                                 self.rotate, "es" if self.rotate > 1 else "")

    def apply(self, model, device):
        """Sets the global switches and returns the model in the chosen memory format."""
        if device == "cuda":
            torch.backends.cudnn.benchmark = self.cudnn_benchmark
        if self.channels_last:
            model = model.to(memory_format=torch.channels_last)
        return model

    def inputs(self, specs, batch, device):
        """`rotate` sets of (args, kwargs); 4-D float inputs in channels_last when chosen."""
        out = []
        for _ in range(self.rotate):
            args, kwargs = export.make_inputs(specs, batch, device)
            if self.channels_last:
                args = [self._nhwc(t) for t in args]
                kwargs = {k: self._nhwc(t) for k, t in kwargs.items()}
            out.append((args, kwargs))
        return out

    @staticmethod
    def _nhwc(t):
        if torch.is_tensor(t) and t.dim() == 4 and t.dtype.is_floating_point:
            return t.contiguous(memory_format=torch.channels_last)
        return t

    def optimizer(self, name, params):
        extra = {"fused": True} if self.fused_optimizer else {}
        if name == "sgd":
            return torch.optim.SGD(params, lr=1e-3, **extra)
        if name == "momentum":
            return torch.optim.SGD(params, lr=1e-3, momentum=0.9, **extra)
        return torch.optim.Adam(params, lr=1e-3, **extra)


class HeadStart:
    """A GPU sleep before each marked step, long enough for the host to queue the whole step."""

    MIN_SECONDS = 0.02
    MAX_SECONDS = 0.5

    def __init__(self):
        self.cycles_per_second = self._calibrate()
        self.seconds = self.MIN_SECONDS
        self.host = []  # host seconds to queue each step
        self.ahead = 0  # steps the host queued entirely before the GPU woke up
        self.behind = 0
        self._end = None
        self._t0 = 0.0

    @staticmethod
    def _calibrate():
        cycles = 20_000_000
        torch.cuda._sleep(cycles)  # first call loads the kernel
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        start.record()
        torch.cuda._sleep(cycles)
        end.record()
        end.synchronize()
        return cycles / (start.elapsed_time(end) / 1e3)

    def begin(self):
        torch.cuda.synchronize()
        torch.cuda._sleep(int(self.seconds * self.cycles_per_second))
        self._end = torch.cuda.Event()
        self._end.record()
        self._t0 = time.perf_counter()

    def end(self, counted):
        """After the step's last mark is queued: was the GPU still asleep? Returns that."""
        host = time.perf_counter() - self._t0
        ahead = not self._end.query()
        if counted:
            self.host.append(host)
            if ahead:
                self.ahead += 1
            else:
                self.behind += 1
        if not ahead or 2 * host > self.seconds:
            self.seconds = min(self.MAX_SECONDS, max(2 * self.seconds, 2 * host))
        return ahead

    def note(self):
        host = sorted(self.host)[len(self.host) // 2] if self.host else 0.0
        return ("each marked step queued behind a GPU sleep (last %.3g s; the host took %.3g s "
                "to queue a step, median): %d of %d steps fully queued before the GPU woke" %
                (self.seconds, host, self.ahead, self.ahead + self.behind))
