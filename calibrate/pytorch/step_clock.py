"""The clock of a timed step, shared by layer_timing (marked steps) and framework_step (the
plain step): timestamps (CUDA events or perf_counter), their Stats, autocast by precision and the
loop that times a piece of work. Below both, so neither imports the other to reach it.
"""

import statistics
import time

import torch

import export


class Stats:
    def __init__(self, samples):
        samples = sorted(samples)
        self.median = statistics.median(samples) if samples else 0.0
        self.min = samples[0] if samples else 0.0
        self.max = samples[-1] if samples else 0.0
        self.repeats = len(samples)

    def as_dict(self):
        spread = (self.max - self.min) / self.median if self.median > 0 else 0.0
        return {"median": self.median, "min": self.min, "max": self.max,
                "repeats": self.repeats, "spread": spread}


class Clock:
    """Timestamps: CUDA events on the current stream, or perf_counter on a CPU."""

    def __init__(self, device):
        self.cuda = device == "cuda"

    def now(self):
        if self.cuda:
            e = torch.cuda.Event(enable_timing=True)
            e.record()
            return e
        return time.perf_counter()

    def seconds(self, stamps):
        """Times in seconds since the first stamp."""
        if not self.cuda:
            return [s - stamps[0] for s in stamps]
        torch.cuda.synchronize()
        return [stamps[0].elapsed_time(s) / 1e3 if i else 0.0 for i, s in enumerate(stamps)]

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()


def autocast(device, precision):
    if precision in ("fp16", "bf16"):
        dtype = torch.float16 if precision == "fp16" else torch.bfloat16
        if device == "cpu" and precision == "fp16":
            raise export.ExportError("--precision fp16 autocasts on CUDA only; use bf16 on a CPU")
        return torch.autocast(device_type=device, dtype=dtype)
    return torch.autocast(device_type=device, enabled=False)


def set_matmul_precision(device, precision):
    if device == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = precision == "tf32"
        torch.backends.cudnn.allow_tf32 = precision == "tf32"


def timed(work, clock, repeats, warmup, prepare=None):
    """Stats of `work()` run `repeats` times after `warmup` untimed runs (`prepare()` before
    each, untimed)."""
    samples = []
    for r in range(warmup + repeats):
        if prepare is not None:
            prepare()
        clock.sync()
        start = clock.now()
        work()
        end = clock.now()
        if r >= warmup:
            samples.append(clock.seconds([start, end])[1])
    return Stats(samples)
