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
(torch.cuda._sleep) longer than the host takes to launch the whole step: the host queues the
kernels and the marks while the GPU sleeps, then the GPU runs them back to back, and the events
time the kernels as the framework launched them, with the GPU's own gaps between kernels but
not the host's. CUDA's launch queue bounds how far ahead the host can get (HeadStart's doc);
how long the host went on queuing after the GPU woke is recorded for every step.
"""

import statistics
import time

import torch

import export
import step_clock


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


def plain_step(model, input_sets, device, precision, loss_mode, clock, repeats, warmup,
                choices):
    """Training steps without any hook (SGD with momentum, the run's choices, inputs rotated):
    the framework's own step, which the profile's layer times and optimizer are checked
    against (on a CPU, scaled to). Returns the synchronised steps' Stats, the back-to-back
    step's mean seconds and the host's median seconds to launch one step."""
    autocast, clock_timed = step_clock.autocast, step_clock.timed
    opt = choices.optimizer("momentum", [p for p in model.parameters() if p.requires_grad])
    turn = [0]
    host = []  # seconds the host takes to launch each step (on a GPU: until the call returns)

    def step():
        t0 = time.perf_counter()
        args, kwargs = input_sets[turn[0] % len(input_sets)]
        turn[0] += 1
        with autocast(device, precision):
            loss = export.compute_loss(model(*args, **kwargs), loss_mode)
        loss.backward()
        opt.step()
        opt.zero_grad()
        host.append(time.perf_counter() - t0)

    stats = clock_timed(step, clock, repeats, warmup)
    host_median = statistics.median(host[warmup:])
    # The same steps back to back, as a training loop that never waits for the GPU runs them:
    # the host may launch the next step while the GPU finishes this one.
    clock.sync()
    start = clock.now()
    for _ in range(repeats):
        step()
    end = clock.now()
    return stats, clock.seconds([start, end])[1] / repeats, host_median


class HeadStart:
    """A GPU sleep before each marked step, longer than the host takes to queue the step.

    The first warm-up steps run without it and give the host's own time to queue a marked step
    (`unhindered`); the sleep is then 1.5 times that plus 5 ms (at most MAX_SECONDS) for every
    later step. CUDA holds about a thousand launches per stream: a step of more kernels and marks
    fills the queue during the sleep and the host waits until the GPU wakes and drains it. The
    GPU then still has a full queue ahead of it, and it waits for the host only if the host queues
    the rest slower than the GPU runs what is queued; each step's host time after the wake is
    recorded so that the check can say how much of the step that could be (summary())."""

    MAX_SECONDS = 0.5

    def __init__(self):
        self.cycles_per_second = self._calibrate()
        self.seconds = 0.0  # no sleep until the host's own time is known
        self.unhindered = 0.0
        self.after_wake = []  # host seconds spent queuing after the GPU woke, per timed step
        self.fully_queued = 0
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
        if self.seconds > 0:
            torch.cuda._sleep(int(self.seconds * self.cycles_per_second))
        self._end = torch.cuda.Event()
        self._end.record()
        self._t0 = time.perf_counter()

    def end(self, step, warmup):
        """After the step's last mark is queued (step counts from 0, the first `warmup` steps
        are not timed)."""
        host = time.perf_counter() - self._t0
        if self.seconds == 0:
            self.unhindered = host
            if step + 1 >= warmup - 1:  # the last warm-up step(s) and the timed ones sleep
                self.seconds = min(self.MAX_SECONDS, 1.5 * host + 0.005)
            return
        if step < warmup:
            return
        woke = self._end.query()
        if woke:
            self.after_wake.append(max(0.0, host - self.seconds))
        else:
            self.fully_queued += 1
            self.after_wake.append(0.0)

    def summary(self):
        after = sorted(self.after_wake)
        return {"sleep_s": self.seconds, "host_unhindered_s": self.unhindered,
                "steps": len(after), "fully_queued": self.fully_queued,
                "host_after_wake_median_s": after[len(after) // 2] if after else 0.0,
                "host_after_wake_max_s": after[-1] if after else 0.0}

    def note(self):
        s = self.summary()
        return ("each marked step queued behind a %.3g s GPU sleep (the host queues a marked step "
                "in %.3g s unhindered); %d of %d steps were queued before the GPU woke, the others "
                "filled CUDA's launch queue and finished queuing %.3g s (median, at most %.3g s) "
                "after it" % (s["sleep_s"], s["host_unhindered_s"], s["fully_queued"], s["steps"],
                              s["host_after_wake_median_s"], s["host_after_wake_max_s"]))
