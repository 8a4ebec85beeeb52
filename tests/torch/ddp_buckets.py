"""DDP's real buckets against ddpsim's, for models exported by calibrate/pytorch.

For each model and bucket cap: export the model (the exporter records the gradient-ready
order), wrap a fresh copy in DistributedDataParallel (Gloo, world size 1, CPU), run two
iterations and read the buckets DDP reduces in the second one through a communication hook
(DDP rebuilds its buckets from the first backward's gradient order, then keeps them), and ask
`ddpsim models FILE --buckets --json` for its assignment. Prints one JSON line per case and
exits 1 when any differs.

    /usr/bin/python3 tests/torch/ddp_buckets.py --ddpsim build/sim/ddpsim --out DIR
"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "calibrate", "pytorch"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "calibrate", "pytorch", "examples"))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torchvision  # noqa: E402

import export  # noqa: E402
import transformers_local  # noqa: E402

# Small inputs: the buckets depend on the parameters and the backward order, not on the batch.
MODELS = {
    "resnet50": (torchvision.models.resnet50, ["3x64x64"]),
    "vgg16": (torchvision.models.vgg16, ["3x32x32"]),
    "bert-base": (transformers_local.bert_base, ["16:int64:30522"]),
    "gpt2-small": (transformers_local.gpt2_small, ["16:int64:50257"]),
}


def ddp_buckets(factory, specs, cap_mb):
    model = export.build_model(factory, skip_init=True)
    with torch.no_grad():
        for p in model.parameters():  # the values do not change the buckets
            p.zero_()
    names = {id(p): n for n, p in model.named_parameters()}
    ddp = torch.nn.parallel.DistributedDataParallel(model, bucket_cap_mb=cap_mb)
    seen = []

    def hook(state, bucket):
        seen.append((bucket.index(), [names[id(p)] for p in bucket.parameters()]))
        future = torch.futures.Future()
        future.set_result(bucket.buffer())
        return future

    ddp.register_comm_hook(None, hook)
    args, kwargs = export.make_inputs(specs, 2, "cpu")
    for _ in range(2):
        seen.clear()
        export.compute_loss(ddp(*args, **kwargs), "auto").backward()
    return [params for _, params in sorted(seen)]


def ddpsim_buckets(binary, model_file, cap_mb):
    out = subprocess.run([binary, "models", model_file, "--buckets", "--json",
                          "--bucket-cap", "%gMiB" % cap_mb], check=True, capture_output=True,
                         text=True).stdout
    return [b["tensors"] for b in json.loads(out)["buckets"]["list"]]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ddpsim", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--models", default=",".join(MODELS))
    parser.add_argument("--caps", default="25,1")
    a = parser.parse_args()
    os.makedirs(a.out, exist_ok=True)
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(29500 + os.getpid() % 1000))
    dist.init_process_group("gloo", rank=0, world_size=1)
    failed = 0
    for key in a.models.split(","):
        factory, inputs = MODELS[key]
        specs = [export.InputSpec(s) for s in inputs]
        e = export.export_model(factory, specs, 2, key)
        path = os.path.join(a.out, key + ".yaml")
        with open(path, "w") as f:
            f.write(export.model_file_text(e))
        # The control: the same file without the recorded order (reverse parameter order, what
        # DDP assumes before its first backward and what the zoo's models use).
        order, e.gradient_order = e.gradient_order, []
        reverse_path = os.path.join(a.out, key + "-reverse-order.yaml")
        with open(reverse_path, "w") as f:
            f.write(export.model_file_text(e))
        e.gradient_order = order
        for cap in (float(c) for c in a.caps.split(",")):
            real = ddp_buckets(factory, specs, cap)
            ours = ddpsim_buckets(a.ddpsim, path, cap)
            same = real == ours
            failed += not same
            reverse = ddpsim_buckets(a.ddpsim, reverse_path, cap)
            case = {"model": key, "bucket_cap_mb": cap, "identical": same,
                    "reverse_order_identical": reverse == real,
                    "ddp_buckets": len(real), "ddpsim_buckets": len(ours),
                    "tensors": sum(len(b) for b in real)}
            if not same:
                case["first_difference"] = next(
                    (i for i, (x, y) in enumerate(zip(real, ours)) if x != y), min(len(real), len(ours)))
                i = case["first_difference"]
                case["ddp"] = real[i] if i < len(real) else None
                case["ddpsim"] = ours[i] if i < len(ours) else None
            print(json.dumps(case), flush=True)
    dist.destroy_process_group()
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
