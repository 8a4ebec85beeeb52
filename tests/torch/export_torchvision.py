"""Exports every torchvision classification model (torchvision.models.list_models) at its real
input size and writes, next to each model file, what PyTorch itself says the model has.

    /usr/bin/python3 tests/torch/export_torchvision.py --out DIR [--models a,b]
writes DIR/<model>.yaml and DIR/expected.json: {model: {"parameters": sum(p.numel()),
"tensors": len(list(parameters()))}}. Shapes only: the trace runs on the meta device and the
weights are never initialised, so all of them take seconds, not minutes.
"""

import argparse
import json
import os
import sys
import time
import warnings

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "calibrate", "pytorch"))

import torchvision  # noqa: E402

import export  # noqa: E402

INPUT_SIZE = {"inception_v3": 299}  # everything else: 224 x 224


def classification_models():
    import torchvision.models as m
    return sorted(m.list_models(module=m))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default="")
    a = parser.parse_args()
    warnings.filterwarnings("ignore")
    os.makedirs(a.out, exist_ok=True)
    names = a.models.split(",") if a.models else classification_models()
    expected = {}
    start = time.time()
    for name in names:
        factory = getattr(torchvision.models, name)
        model = export.build_model(factory, skip_init=True)
        expected[name] = {"parameters": sum(p.numel() for p in model.parameters()),
                          "tensors": len(list(model.parameters()))}
        del model
        size = INPUT_SIZE.get(name, 224)
        e = export.export_model(factory, [export.InputSpec("3x%dx%d" % (size, size))], 2, name,
                                order=False)
        with open(os.path.join(a.out, name + ".yaml"), "w") as f:
            f.write(export.model_file_text(e))
    with open(os.path.join(a.out, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
    print("%d models exported in %.1f s" % (len(names), time.time() - start))
    return 0


if __name__ == "__main__":
    sys.exit(main())
