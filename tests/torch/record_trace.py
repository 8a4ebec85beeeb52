"""Records a torch.profiler trace of a few training steps, annotated with calibrate/pytorch's
TraceAnnotator, and exports the same model's model file, for the trace importer's test.

    /usr/bin/python3 tests/torch/record_trace.py --out DIR
writes DIR/trace.json (Chrome trace: Kineto's format on PyTorch builds with Kineto, the legacy
profiler's plain list of CPU events without), DIR/model.yaml and DIR/record.json.
"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "calibrate", "pytorch"))

import torch  # noqa: E402
import torchvision  # noqa: E402
from torch.profiler import ProfilerActivity, profile  # noqa: E402

import export  # noqa: E402
from annotate import TraceAnnotator  # noqa: E402

BATCH = 4
INPUT = "3x64x64"


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--steps", type=int, default=4)
    a = parser.parse_args()
    os.makedirs(a.out, exist_ok=True)
    spec = export.InputSpec(INPUT)
    e = export.export_model(torchvision.models.resnet18, [spec], BATCH, "resnet18")
    with open(os.path.join(a.out, "model.yaml"), "w") as f:
        f.write(export.model_file_text(e))

    torch.manual_seed(0)
    model = torchvision.models.resnet18()
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = spec.make(BATCH, "cpu")
    y = torch.randint(0, 1000, (BATCH,))
    annotator = TraceAnnotator(model)
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        for _ in range(a.steps):
            with annotator.step():
                loss = torch.nn.functional.cross_entropy(model(x), y)
                loss.backward()
                optimizer.step()
                optimizer.zero_grad()
    annotator.remove()
    prof.export_chrome_trace(os.path.join(a.out, "trace.json"))
    with open(os.path.join(a.out, "record.json"), "w") as f:
        json.dump({"batch": BATCH, "steps": a.steps, "layers": len(e.layers),
                   "kineto": torch.autograd.kineto_available(), "torch": torch.__version__}, f)
    return 0


if __name__ == "__main__":
    sys.exit(main())
