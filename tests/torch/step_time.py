"""Measures a plain PyTorch training step and runs the exporter's --time on the same model, for
the test that ddpsim's prediction from the profile matches the measurement.

The measured step is this script's own loop (forward, loss, backward, SGD-with-momentum step,
zero_grad), independent of the exporter's code; it runs before and after the exporter (the
machine may be shared, so both halves are pooled and the load average is recorded).

    /usr/bin/python3 tests/torch/step_time.py --case resnet18 --out DIR
writes DIR/model.yaml, DIR/model.profile.yaml and DIR/measured.json.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
CALIBRATE = os.path.join(HERE, "..", "..", "calibrate", "pytorch")
EXAMPLES = os.path.join(CALIBRATE, "examples")
sys.path.insert(0, CALIBRATE)
sys.path.insert(0, EXAMPLES)

import torch  # noqa: E402

import export  # noqa: E402

CASES = {
    # name: (factory, factory arguments, inputs, batch)
    "resnet18": ("torchvision.models:resnet18", [], ["3x96x96"], 4),
    "gpt-tiny": (os.path.join(EXAMPLES, "transformers_local.py") + ":GPT2LMHeadModel",
                 ["vocab=2000", "hidden=256", "layers=4", "heads=4", "max_positions=128"],
                 ["64:int64:2000"], 4),
}


def load():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def plain_steps(factory, kwargs, specs, batch, steps, warmup=2):
    torch.manual_seed(0)
    model = factory(**kwargs)
    model.train()
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    args, kw = export.make_inputs(specs, batch, "cpu")
    samples = []
    for i in range(warmup + steps):
        start = time.perf_counter()
        loss = export.compute_loss(model(*args, **kw), "auto")
        loss.backward()
        opt.step()
        opt.zero_grad()
        if i >= warmup:
            samples.append(time.perf_counter() - start)
    return samples


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--case", choices=sorted(CASES), required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--repeats", type=int, default=10)
    a = parser.parse_args()
    os.makedirs(a.out, exist_ok=True)
    factory_spec, factory_args, inputs, batch = CASES[a.case]
    factory = export.load_factory(factory_spec)
    kwargs = export.parse_kwargs(factory_args)
    specs = [export.InputSpec(s) for s in inputs]

    load_before = load()
    before = plain_steps(factory, kwargs, specs, batch, a.repeats)
    model_file = os.path.join(a.out, "model.yaml")
    command = [sys.executable, os.path.join(CALIBRATE, "ddpsim_torch.py"), "export", factory_spec,
               "--batch", str(batch), "--time", "--repeats", str(a.repeats), "--warmup", "3",
               "--name", a.case, "-o", model_file]
    for s in inputs:
        command += ["--input", s]
    for arg in factory_args:
        command += ["--arg", arg]
    exporter = subprocess.run(command, capture_output=True, text=True)
    if exporter.returncode != 0:
        sys.stderr.write(exporter.stdout + exporter.stderr)
        return exporter.returncode
    after = plain_steps(factory, kwargs, specs, batch, a.repeats)
    load_after = load()
    result = {"case": a.case, "batch": batch, "measured_step_s": statistics.median(before + after),
              "after_over_before": statistics.median(after) / statistics.median(before),
              "before_s": before, "after_s": after, "load_before": load_before,
              "load_after": load_after, "torch_threads": torch.get_num_threads(),
              "exporter": exporter.stdout.strip()}
    with open(os.path.join(a.out, "measured.json"), "w") as f:
        json.dump(result, f, indent=2)
    print(json.dumps({k: v for k, v in result.items() if not k.endswith("_s") or k ==
                      "measured_step_s"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
