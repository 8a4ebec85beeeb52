#!/usr/bin/env python3
"""Times a plain PyTorch training step, the ground truth a profile's prediction is checked against.

    python3 calibrate/pytorch/plain_step.py torchvision.models:resnet50 --input 3x224x224 \\
        --batch 64 --precision bf16 --device cuda [--steps 30 --warmup 10] [--json OUT.json] \\
        [--trace TRACE.json]

One step is what a training loop does: forward under autocast, loss, backward, SGD with
momentum, zero_grad. Nothing is hooked or synchronised inside the step (unlike the exporter's
--time, which marks every layer), so this is the number a user's own loop would see. Timed with
CUDA events on a GPU and the wall clock on a CPU; prints the median and the spread.
With --trace, --trace-steps more steps of the same model run under torch.profiler (CPU and, on a GPU,
CUDA activities) with annotate.py's layer marks, for `ddpsim calibrate --import-torch-trace`;
they are not among the timed steps.
"""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import export  # noqa: E402
import layer_timing  # noqa: E402


def train_step(model, optimizer, args, kw, precision, device):
    with layer_timing.autocast(device, precision):
        loss = export.compute_loss(model(*args, **kw), "auto")
    loss.backward()
    optimizer.step()
    optimizer.zero_grad()


def measure(factory, kwargs, specs, batch, precision, device, steps, warmup, trace=None,
            trace_steps=5):
    import torch
    torch.manual_seed(0)
    layer_timing.set_matmul_precision(device, precision)
    model = export.build_model(factory, kwargs).to(device)
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    args, kw = export.make_inputs(specs, batch, device)
    samples = []
    for i in range(warmup + steps):
        if device == "cuda":
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
        else:
            t0 = time.perf_counter()
        train_step(model, optimizer, args, kw, precision, device)
        if device == "cuda":
            end.record()
            end.synchronize()
            seconds = start.elapsed_time(end) / 1e3
        else:
            seconds = time.perf_counter() - t0
        if i >= warmup:
            samples.append(seconds)
    if trace:
        record_trace(model, optimizer, args, kw, precision, device, trace, trace_steps)
    return samples


def record_trace(model, optimizer, args, kw, precision, device, path, steps=5):
    import torch
    from torch.profiler import ProfilerActivity, profile
    from annotate import TraceAnnotator
    activities = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if device == "cuda" else [])
    annotator = TraceAnnotator(model)
    try:
        with profile(activities=activities) as prof:
            for _ in range(steps):
                with annotator.step():
                    train_step(model, optimizer, args, kw, precision, device)
                if device == "cuda":
                    torch.cuda.synchronize()
    finally:
        annotator.remove()
    prof.export_chrome_trace(path)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("factory", help="MODULE:FACTORY or FILE.py:FACTORY")
    p.add_argument("--input", action="append", required=True, help="as the exporter's --input")
    p.add_argument("--arg", action="append", help="KEY=VALUE for the factory")
    p.add_argument("--batch", type=int, required=True)
    p.add_argument("--precision", choices=("fp32", "tf32", "fp16", "bf16"), default="fp32")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu")
    p.add_argument("--steps", type=int, default=30)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--json", help="write the samples and the median here")
    p.add_argument("--trace", help="also record a torch.profiler trace of more steps here")
    p.add_argument("--trace-steps", type=int, default=5, help="steps in the trace (default 5)")
    a = p.parse_args()
    import torch
    try:
        samples = measure(export.load_factory(a.factory), export.parse_kwargs(a.arg),
                          [export.InputSpec(s) for s in a.input], a.batch, a.precision, a.device,
                          a.steps, a.warmup, a.trace, a.trace_steps)
    except export.ExportError as e:
        print("plain_step: %s" % e, file=sys.stderr)
        return 2
    median = statistics.median(samples)
    spread = (max(samples) - min(samples)) / median
    name = torch.cuda.get_device_name() if a.device == "cuda" else "cpu"
    print("%s batch %d %s on %s: step %.4f ms median of %d (min %.4f, max %.4f, spread %.1f %%), "
          "%.1f samples/s" % (a.factory, a.batch, a.precision, name, median * 1e3, len(samples),
                              min(samples) * 1e3, max(samples) * 1e3, spread * 100,
                              a.batch / median))
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"factory": a.factory, "inputs": a.input, "batch": a.batch,
                       "precision": a.precision, "device": name, "torch": torch.__version__,
                       "median_s": median, "samples_s": samples}, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
