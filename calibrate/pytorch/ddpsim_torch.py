#!/usr/bin/env python3
"""ddpsim's PyTorch exporter: your model as a ddpsim model file, and with --time its measured
per-layer times as a calibration profile; and, one process per rank, the measurements that
check ddpsim against real DDP (an all-reduce sweep printed like nccl-tests, and a model's DDP
step with and without no_sync()).

    python3 calibrate/pytorch/ddpsim_torch.py export torchvision.models:resnet50 \\
        --input 3x224x224 --batch 64 --precision bf16 --device cuda --time -o resnet50.yaml
    RANK=0 WORLD_SIZE=2 MASTER_ADDR=... python3 calibrate/pytorch/ddpsim_torch.py allreduce \\
        -b 8 -e 64M -f 2 --backend gloo --device cpu
    RANK=0 WORLD_SIZE=2 MASTER_ADDR=... python3 calibrate/pytorch/ddpsim_torch.py ddp-step \\
        torchvision.models:resnet18 --input 3x32x32 --batch 32 --bucket-cap-mb 25 -o step.json

Runs with the user's own PyTorch (1.13 or newer, CPU or CUDA); needs nothing else.
Exit codes: 0 done, 2 bad arguments or a model that cannot be exported (one line on stderr).
"""

import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def _interpreter_with_torch():
    """This interpreter when it can import torch; else re-executes the script under one that can
    ($DDPSIM_TORCH_PYTHONS, ':'-separated, or /usr/bin/python3 and every python3 on PATH), saying
    so in one line; else one line naming this interpreter and how to get one, and exit 2. The
    first python3 on PATH is often a pyenv or venv interpreter without torch."""
    try:
        import torch  # noqa: F401
        return
    except ModuleNotFoundError as e:
        if e.name != "torch":
            raise
    import subprocess
    me = os.path.realpath(sys.executable)
    listed = os.environ.get("DDPSIM_TORCH_PYTHONS")
    if listed is not None:
        candidates = [c for c in listed.split(":") if c]
    else:
        candidates = ["/usr/bin/python3"] + [os.path.join(d, "python3") for d in
                                             os.environ.get("PATH", "").split(os.pathsep) if d]
        candidates = [c for c in candidates if os.path.realpath(c) != me]
    version = "Python %d.%d.%d" % sys.version_info[:3]
    script = os.path.relpath(os.path.abspath(__file__))
    if not os.environ.get("DDPSIM_TORCH_REEXEC"):
        for c in dict.fromkeys(candidates):
            if not os.access(c, os.X_OK):
                continue
            if subprocess.run([c, "-c", "import torch"], capture_output=True).returncode == 0:
                sys.stderr.write("note: %s (%s) has no torch; running with %s, which has it\n"
                                 % (sys.executable, version, c))
                sys.stderr.flush()
                os.environ["DDPSIM_TORCH_REEXEC"] = "1"
                os.execv(c, [c, os.path.abspath(__file__)] + sys.argv[1:])
    sys.stderr.write("error: %s (%s) cannot import torch, and no other python3 found can: "
                     "install PyTorch for it (pip install torch; Debian: apt install "
                     "python3-torch, then /usr/bin/python3 %s ...)\n"
                     % (sys.executable, version, script))
    sys.exit(2)


_interpreter_with_torch()

import ddpsim_yaml  # noqa: E402
import export  # noqa: E402

PRECISIONS = ("fp32", "tf32", "fp16", "bf16")
LOSSES = ("auto", "cross-entropy", "sum", "output")


def cmd_export(a):
    if a.batch < 1:
        raise export.ExportError("--batch must be >= 1, got %d" % a.batch)
    import framework_step
    choices = framework_step.Choices(a.channels_last, a.cudnn_benchmark, a.fused_optimizer,
                                     a.rotate_inputs)
    if not a.time:
        given = [f for f, v in (("--channels-last", a.channels_last),
                                ("--cudnn-benchmark", a.cudnn_benchmark),
                                ("--fused-optimizer", a.fused_optimizer),
                                ("--rotate-inputs", a.rotate_inputs != 1),
                                ("--check-json", a.check_json)) if v]
        if given:
            raise export.ExportError("%s applies to --time only" % given[0])
    if a.fused_optimizer and a.device != "cuda":
        raise export.ExportError("--fused-optimizer needs --device cuda")
    factory = export.load_factory(a.factory)
    specs = [export.InputSpec(s) for s in a.input]
    name = a.name or a.factory.rsplit(":", 1)[1].split(".")[-1]
    if a.device == "cuda":
        import torch
        if not torch.cuda.is_available():
            raise export.ExportError("--device cuda: this PyTorch sees no CUDA device")
    import torch
    where, attr = a.factory.rsplit(":", 1)
    description = "%s:%s, input %s (exported from PyTorch %s)" % (
        os.path.basename(where), attr, " ".join(s.text for s in specs), torch.__version__)
    e = export.export_model(factory, specs, a.batch, name, a.loss, export.parse_kwargs(a.arg),
                            order=not a.no_backward, device=a.device, description=description)
    e.source = {"factory": a.factory, "inputs": [s.text for s in specs], "batch": a.batch,
                "loss": a.loss, "torch": torch.__version__}
    if a.time:
        import layer_timing
        profile_path = a.profile or os.path.splitext(a.output)[0] + ".profile.yaml"
        run = layer_timing.time_model(factory, export.parse_kwargs(a.arg), specs, e, a.batch,
                                      a.precision, a.device, a.repeats, a.warmup, a.loss, choices)
        ddpsim_yaml.write_atomic(profile_path, layer_timing.profile_text(run))
        if a.check_json:
            with open(a.check_json, "w") as f:
                json.dump(dict(run.check, model=e.name, batch=a.batch, precision=a.precision,
                               device=run.device.get("name", ""), torch=torch.__version__,
                               date=run.device.get("date", "")), f, indent=1, sort_keys=True)
        c = run.check
        print("check: layers %.4g s + optimizer %.4g s = %.4g s; plain step %.4g s (%+.1f %%, "
              "the host launched it in %.4g s)%s"
              % (c["layers_forward"] + c["layers_backward"], c["optimizer"],
                 c["predicted_step"], c["plain_step"]["median"], 100 * c["gap"],
                 c["plain_step_host"],
                 "; marks without head start %.4g s (%+.1f %%)" % (
                     c["before_marks"]["predicted_step"], 100 * c["before_marks"]["gap"])
                 if "before_marks" in c else ""))
        if run.order:
            e.gradient_order = run.order
        print("profile: %s (forward %.4g s, backward %.4g s, optimizer %.4g s per step of %d; "
              "measured step %.4g s)" % (profile_path, run.forward, run.backward,
                                         run.optimizer_time("momentum"), a.batch, run.step))
    ddpsim_yaml.write_atomic(a.output, export.model_file_text(e))
    params = sum(1 for _ in e.params)
    print("model: %s (%d layers, %d parameter tensors, %s parameters, %.4g GFLOP/sample forward)"
          % (a.output, len(e.layers), params,
             "{:,}".format(sum(_numel(s) for _, s, _, _ in e.params)),
             sum(l.cost.flops for l in e.layers) / a.batch / 1e9))
    if e.unused:
        print("note: %d parameter tensors were not used by the forward pass (listed as "
              "unused_parameters): %s" % (len(e.unused), ", ".join(e.unused[:5])))
    return 0


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def main(argv=None):
    parser = argparse.ArgumentParser(prog="ddpsim_torch.py", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("export", help="write a ddpsim model file (and with --time a profile)")
    p.add_argument("factory", help="MODULE:FACTORY, e.g. torchvision.models:resnet50 or "
                                   "my_model.py:build (called with no arguments, or --arg)")
    p.add_argument("--input", action="append", default=[], metavar="SHAPE[:DTYPE[:HIGH]]",
                   help="one sample of a forward argument, without the batch: 3x224x224, "
                        "128:int64:50257 (token ids below 50257), name=... for a keyword; "
                        "repeat for several")
    p.add_argument("--batch", type=int, default=32, help="samples per step (default 32)")
    p.add_argument("--precision", choices=PRECISIONS, default="fp32",
                   help="--time: autocast fp16/bf16, or tf32/fp32 matmuls (default fp32)")
    p.add_argument("--device", choices=("cpu", "cuda"), default="cpu",
                   help="where --time measures and the gradient order is recorded (default cpu)")
    p.add_argument("--time", action="store_true",
                   help="measure every layer's forward and backward time on --device and write "
                        "a calibration profile")
    p.add_argument("--profile", help="--time: profile path (default: OUTPUT's stem + "
                                     ".profile.yaml)")
    p.add_argument("--repeats", type=int, default=10, help="--time: timed steps (default 10)")
    p.add_argument("--warmup", type=int, default=3, help="--time: untimed steps first (default 3)")
    p.add_argument("--channels-last", action="store_true",
                   help="--time: model and 4-D inputs in channels_last (NHWC) memory format")
    p.add_argument("--cudnn-benchmark", action="store_true",
                   help="--time: torch.backends.cudnn.benchmark = True (cuDNN picks algorithms)")
    p.add_argument("--fused-optimizer", action="store_true",
                   help="--time: the optimizers with fused=True (CUDA)")
    p.add_argument("--rotate-inputs", type=int, default=1, metavar="N",
                   help="--time: N input batches used in turn (default 1)")
    p.add_argument("--check-json", metavar="FILE",
                   help="--time: write the layers' sum against the plain step here (JSON)")
    p.add_argument("--loss", choices=LOSSES, default="auto",
                   help="auto (default): the model's own loss, else cross-entropy on (batch, "
                        "classes) or (batch, tokens, vocab) outputs, else their sum")
    p.add_argument("--name", help="model name in ddpsim (default: the factory's name)")
    p.add_argument("--arg", action="append", metavar="KEY=VALUE",
                   help="keyword argument for the factory (a Python literal), repeatable")
    p.add_argument("--no-backward", action="store_true",
                   help="skip the real forward/backward that records the gradient order "
                        "(ddpsim then assumes reverse parameter order)")
    p.add_argument("-o", "--output", required=True, help="model file to write (YAML)")
    import allreduce_sweep
    import ddp_step
    import dist_env
    allreduce_sweep.add_arguments(sub.add_parser(
        "allreduce", help="all-reduce sweep through torch.distributed, printed like nccl-tests "
                          "(one process per rank)"))
    ddp_step.add_arguments(sub.add_parser(
        "ddp-step", help="a model's DDP step, with and without no_sync() (one process per "
                         "rank)"))
    a = parser.parse_args(argv)
    if a.command in ("allreduce", "ddp-step"):
        try:
            return (allreduce_sweep if a.command == "allreduce" else ddp_step).run(a)
        except (dist_env.DistError, export.ExportError) as err:
            print("error: %s" % err, file=sys.stderr)
            return 2
    try:
        if a.repeats < 1 or a.warmup < 0:
            raise export.ExportError("--repeats must be >= 1 and --warmup >= 0")
        return cmd_export(a)
    except export.ExportError as err:
        print("error: %s" % err, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
