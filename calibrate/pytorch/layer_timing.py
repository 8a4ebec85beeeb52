"""--time: every layer's forward and backward time, measured inside real training steps.

The layers are timed where they run, in the whole model, not one by one: a mark is taken when
each layer's forward ends (module forward hooks, or the end of a run of functional calls) and
when backward reaches each layer (a hook on the gradient of its output fires just before the
layer's own backward starts). A layer's forward time is the time from the previous mark to its
own; its backward time is the time from its mark to the next one in backward. The marks are
CUDA events on the GPU (on the stream the work runs on) and the wall clock on a CPU, so the
layer times of one step add up to that step. Each time is the median over --repeats steps after
--warmup steps. The steps are a real training loop (SGD with momentum, zero_grad() with this
PyTorch's default, and the framework choices of framework_step.Choices), whose update (step plus
zero_grad) is the profile's momentum time; plain SGD and Adam are timed on their own, and plain
training steps without any hook give the framework's own step.

On a GPU each marked step runs behind a head start (framework_step.HeadStart), so the events
time the kernels PyTorch launched and not the GPU waiting for the hooks; the times are kept as
measured and their sum plus the optimizer is checked against the plain step (Run.check). On a
CPU the hooks' own cost cannot be taken out that way, so the layer times there are scaled to the
plain step less its optimizer. Device ceilings (a GEMM, a copy) give the roofline efficiency per
layer kind, which ddpsim uses for layers or models the profile does not have.
"""

import datetime
import os
import platform
import statistics

import torch

import ddpsim_yaml
import export
import framework_step
import model_trace
# The clock and the timed loop live below both this module and framework_step (step_clock.py);
# these names stay importable from here.
from step_clock import Clock, Stats, autocast, set_matmul_precision  # noqa: F401
from step_clock import timed as _timed

ACTIVATION_BYTES = {"fp32": 4, "tf32": 4, "fp16": 2, "bf16": 2}
OPTIMIZERS = ("sgd", "momentum", "adam")


class StepTimer:
    """Marks of one training step: forward ends and backward starts of every timed layer."""

    def __init__(self, clock, timed):
        self.clock, self.timed = clock, timed
        self.fwd, self.bwd = [], []  # (layer name, stamp)

    def mark_forward(self, name, outputs):
        if name not in self.timed:
            return
        self.fwd.append((name, self.clock.now()))
        # A pre-hook on the node that made the output fires just before that node runs in
        # backward. (A tensor hook would not do: after an in-place op such as ReLU(inplace=True)
        # a tensor's hooks stay with the node that made it first.)
        nodes = {t.grad_fn for t in outputs if t.requires_grad and t.grad_fn is not None}
        for node in nodes:
            node.register_prehook(lambda grads, name=name: self.bwd.append((name, self.clock.now())))

    def layer_times(self, start, forward_end, backward_start, backward_end):
        """{name: (forward seconds, backward seconds)} of this step."""
        stamps = [start] + [s for _, s in self.fwd] + [forward_end, backward_start] + \
            [s for _, s in self.bwd] + [backward_end]
        t = self.clock.seconds(stamps)
        n = len(self.fwd)
        out = {name: [0.0, 0.0] for name in self.timed}
        for i, (name, _) in enumerate(self.fwd):
            out[name][0] += t[1 + i] - t[i]
        # Backward: each interval belongs to the layer whose mark opened it, the first (from
        # backward()'s call to the loss's own mark) to the first mark's layer.
        bwd = sorted(zip(t[n + 3:n + 3 + len(self.bwd)], (name for name, _ in self.bwd)))
        ends = [b for b, _ in bwd[1:]] + [t[-1]]
        for j, ((begin, name), end) in enumerate(zip(bwd, ends)):
            out[name][1] += end - (t[n + 2] if j == 0 else begin)
        return out


class Run:
    def __init__(self):
        self.layers = []  # (exported layer, fwd Stats, bwd Stats)
        self.optimizers = {}  # name -> Stats
        self.step = 0.0  # one plain training step (momentum), median seconds
        self.forward = self.backward = 0.0
        self.order = []
        self.scale = 1.0  # the layers' total (total_from) / sum of the layers' medians
        self.total_from = ""
        self.ceilings = {}
        self.device = {}
        self.meta = {}
        self.check = {}  # the layers' sum against the plain step (time_model)
        self.choices = None

    def optimizer_time(self, name):
        return self.optimizers[name].median if name in self.optimizers else 0.0


def _time_optimizers(model, clock, repeats, warmup, names, choices):
    params = [p for p in model.parameters() if p.requires_grad and p.grad is not None]
    grads = [p.grad.detach().clone() for p in params]

    def restore():
        for p, g in zip(params, grads):
            p.grad = g

    out = {}
    for name in names:
        opt = choices.optimizer(name, params)

        def update():
            opt.step()
            opt.zero_grad()

        out[name] = _timed(update, clock, repeats, warmup, restore)
    return out


def _gemm_ceiling(device, precision, clock):
    n = 8192 if device == "cuda" else 1024
    dtype = {"fp16": torch.float16, "bf16": torch.bfloat16}.get(precision, torch.float32)
    if device == "cpu":
        dtype = torch.float32  # ddpsim reads the fp32 ceiling for every kind on a CPU run
    a = torch.randn(n, n, device=device, dtype=dtype)
    b = torch.randn(n, n, device=device, dtype=dtype)
    s = _timed(lambda: torch.mm(a, b), clock, 5, 2)
    return {"precision": precision if device == "cuda" else "fp32", "m": n, "n": n, "k": n,
            "time": s.as_dict(), "flops": 2.0 * n ** 3 / s.median}


def _copy_ceiling(device, clock):
    elements = (256 << 20) // 4 if device == "cuda" else (64 << 20) // 4
    src = torch.empty(elements, device=device).normal_()
    dst = torch.empty_like(src)
    s = _timed(lambda: dst.copy_(src), clock, 5, 2)
    nbytes = float(elements * 4)
    return {"bytes": nbytes, "time": s.as_dict(), "bandwidth": 2 * nbytes / s.median}


def _device_info(device):
    info = {"name": "", "compute_capability": "", "memory_bytes": 0, "multiprocessors": 0,
            "gpus": 0, "driver": "", "cuda_runtime": "", "cublas": "", "cudnn": "", "nccl": "",
            "host": platform.node(),
            "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")}
    if device == "cuda":
        p = torch.cuda.get_device_properties(torch.cuda.current_device())
        info.update(name=p.name, compute_capability="%d.%d" % (p.major, p.minor),
                    memory_bytes=p.total_memory, multiprocessors=p.multi_processor_count,
                    gpus=torch.cuda.device_count(), cuda_runtime=torch.version.cuda or "")
        if torch.backends.cudnn.is_available():
            info["cudnn"] = str(torch.backends.cudnn.version())
        try:
            info["nccl"] = ".".join(str(v) for v in torch.cuda.nccl.version())
        except (AttributeError, RuntimeError, TypeError):
            pass
    else:
        name = platform.processor() or platform.machine()
        try:
            with open("/proc/cpuinfo") as f:
                for line in f:
                    if line.startswith("model name"):
                        name = line.split(":", 1)[1].strip()
                        break
        except OSError:
            pass
        info["name"] = "CPU: %s (%d threads)" % (name, torch.get_num_threads())
        try:
            info["memory_bytes"] = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
        except (ValueError, OSError, AttributeError):
            pass
    return info


def _marked_steps(model, timed, input_sets, optimizer, clock, precision, device, loss_mode,
                  warmup, repeats, head=None):
    """Marked training steps: per-layer forward and backward samples, each step's forward and
    backward totals, the optimizer's samples and the gradient-ready order of the last step.
    `head`: a framework_step.HeadStart (GPU), else the marks run as the host launches."""
    samples = {name: ([], []) for name in timed}
    totals = ([], [])
    optimizer_samples = []
    order = []
    names = {id(p): n for n, p in model.named_parameters()}
    accumulators = []
    for p in model.parameters():  # the gradient-ready order, as export.gradient_ready_order
        if not p.requires_grad:
            continue
        acc = p.expand_as(p).grad_fn.next_functions[0][0]
        acc.register_hook(lambda *unused, name=names[id(p)]: order.append(name))
        accumulators.append(acc)  # the node must outlive the steps for its hook to stay
    for step in range(warmup + repeats):
        args, kwargs = input_sets[step % len(input_sets)]
        timer = StepTimer(clock, timed)
        tracer = model_trace.Tracer(model, record=False, mark=timer.mark_forward)
        order.clear()
        clock.sync()
        if head is not None:
            head.begin()
        start = clock.now()
        try:
            with autocast(device, precision), tracer:
                output = model(*args, **kwargs)
                tracer.begin_group("loss")
                loss = export.compute_loss(output, loss_mode)
                tracer.end_group()
        finally:
            tracer.remove()
        forward_end = clock.now()
        backward_start = clock.now()
        loss.backward()
        backward_end = clock.now()
        optimizer.step()
        optimizer.zero_grad()
        optimizer_end = clock.now()
        if head is not None:
            head.end(step, warmup)
        if step >= warmup:
            times = timer.layer_times(start, forward_end, backward_start, backward_end)
            for name, (f, b) in times.items():
                samples[name][0].append(f)
                samples[name][1].append(b)
            totals[0].append(sum(f for f, _ in times.values()))
            totals[1].append(sum(b for _, b in times.values()))
            optimizer_samples.append(clock.seconds([backward_end, optimizer_end])[1])
        del output, loss, timer
    return samples, totals, optimizer_samples, list(order)


def _sum_of_medians(samples):
    return sum(statistics.median(f) + statistics.median(b) for f, b in samples.values())


def time_model(factory, factory_kwargs, specs, exported, batch, precision, device, repeats,
               warmup, loss_mode, choices=None):
    """Times every exported layer inside real training steps (see the module's doc). On a GPU
    the marked steps run behind a head start (framework_step.HeadStart) and the layer times are
    not scaled: their sum plus the optimizer is checked against the plain step of the same run
    (run.check). The marks without the head start, as --time took them before, are kept there
    for comparison."""
    choices = choices or framework_step.Choices()
    clock = Clock(device)
    set_matmul_precision(device, precision)
    torch.manual_seed(0)
    model = export.build_model(factory, factory_kwargs).to(device)
    model = choices.apply(model, device)
    model.train()
    timed = {layer.name for layer in exported.layers}
    input_sets = choices.inputs(specs, batch, device)
    params = [p for p in model.parameters() if p.requires_grad]
    run = Run()
    run.choices = choices
    # The steps run as a training loop does, SGD with momentum and zero_grad() as this PyTorch
    # version defaults it: how gradients are kept between steps changes how memory is reused,
    # which on a CPU changes the step time by as much as 2x.
    optimizer = choices.optimizer("momentum", params)
    head = framework_step.HeadStart() if device == "cuda" else None
    samples, totals, optimizer_samples, run.order = _marked_steps(
        model, timed, input_sets, optimizer, clock, precision, device, loss_mode, warmup,
        repeats, head)
    for layer in exported.layers:
        if not samples[layer.name][0]:
            raise export.ExportError("layer %s did not run in the timed steps (the forward pass "
                                     "differs between runs)" % layer.name)
    medians = _sum_of_medians(samples)
    steps = [f + b for f, b in zip(*totals)]
    before = None
    if head is not None:
        # The same marks as the host launches them (what --time did on a GPU before the head
        # start), for the check's "before" column.
        plain_marks = _marked_steps(model, timed, input_sets, optimizer, clock, precision,
                                    device, loss_mode, min(warmup, 2), repeats)
        before = (_sum_of_medians(plain_marks[0]), statistics.median(plain_marks[2]))
    del optimizer
    # SGD and Adam on the gradients of one more step; momentum was timed inside the loop.
    args, kwargs = input_sets[0]
    with autocast(device, precision):
        loss = export.compute_loss(model(*args, **kwargs), loss_mode)
    loss.backward()
    del loss
    run.optimizers = _time_optimizers(model, clock, repeats, warmup, ("sgd", "adam"), choices)
    run.optimizers["momentum"] = Stats(optimizer_samples)
    step_stats, pipelined, host = framework_step.plain_step(
        model, input_sets, device, precision, loss_mode, clock, max(repeats, 20), warmup, choices)
    run.step = step_stats.median
    if head is not None:
        # The marks time the GPU running the kernels PyTorch launched, back to back: they are
        # kept as measured, and their sum is checked against the plain step (run.check).
        run.scale = 1.0
        run.total_from = "the marks as measured (" + head.note() + ")"
    else:
        # On a CPU the marks cost time of their own (a Python hook per layer: on a 2-core CPU a
        # 4-layer GPT's marked forward + backward was 9 to 19 % above the plain step less its
        # optimizer). They keep each layer's share; the total is the plain step's, less the
        # optimizer (the marked step's when that is not positive). The medians of many layers
        # need not add up to the median step either (a pre-emption lands in a different layer
        # each step), which the same scaling takes care of.
        target = run.step - run.optimizers["momentum"].median
        run.total_from = "the plain step less the optimizer (the marks' hooks cost time)"
        if target <= 0:
            target = statistics.median(steps)
            run.total_from = "the median marked step"
        run.scale = target / medians if medians > 0 else 1.0
    for layer in exported.layers:
        f, b = samples[layer.name]
        run.layers.append((layer, Stats([x * run.scale for x in f]),
                           Stats([x * run.scale for x in b])))
    run.forward = sum(f.median for _, f, _ in run.layers)
    run.backward = sum(b.median for _, _, b in run.layers)
    predicted = predicted_step(run)
    run.check = {"plain_step": step_stats.as_dict(), "layers_forward": run.forward,
                 "layers_backward": run.backward,
                 "optimizer": run.optimizer_time("momentum"), "predicted_step": predicted,
                 "gap": predicted / run.step - 1.0 if run.step > 0 else 0.0,
                 "plain_step_back_to_back": pipelined,
                 # On a GPU: near the plain step when the host, not the GPU, sets the pace (the
                 # layers then add up to less than the step); well under it when the GPU does.
                 "plain_step_host": host,
                 "gap_back_to_back": predicted / pipelined - 1.0 if pipelined > 0 else 0.0,
                 "scale": run.scale, "choices": choices.describe()}
    if before is not None:
        run.check["before_marks"] = {"layers": before[0], "optimizer": before[1],
                                     "predicted_step": before[0] + before[1],
                                     "gap": (before[0] + before[1]) / run.step - 1.0}
        run.check["head_start"] = head.summary()
    run.ceilings = {"gemm": [_gemm_ceiling(device, precision, clock)],
                    "d2d": _copy_ceiling(device, clock)}
    if device == "cuda" and precision != "fp32":
        run.ceilings["gemm"].append(_gemm_ceiling(device, "fp32", clock))
    run.device = _device_info(device)
    run.meta = {"model": exported.name, "batch": batch, "precision": precision,
                "sequence_length": exported.sequence_length, "device": device,
                "repeats": repeats, "warmup": warmup, "torch": torch.__version__,
                "params": sum(p.numel() for p in params)}
    return run


def _roofline_efficiency(run):
    """Per layer kind: the roofline time of its layers over their measured time, with the
    ceilings just measured (ddpsim's compute_cost.cpp formula, forward plus backward)."""
    act = ACTIVATION_BYTES[run.meta["precision"]]
    gemm = {g["precision"]: g["flops"] for g in run.ceilings["gemm"]}
    tensor_peak = gemm.get(run.meta["precision"], gemm.get("fp32"))
    scalar_peak = gemm.get("fp32", tensor_peak)
    bandwidth = run.ceilings["d2d"]["bandwidth"]
    roofline, measured = {}, {}
    for layer, f, b in run.layers:
        kind = layer.kind
        peak = tensor_peak if kind in ("conv", "linear", "attention") else scalar_peak
        flops = layer.cost.flops
        io = layer.cost.io * act
        bwd_factor = layer.cost.bwd_flops / flops if flops > 0 else 1.0
        t = max(flops / peak, io / bandwidth) + max(flops * bwd_factor / peak, 2 * io / bandwidth)
        roofline[kind] = roofline.get(kind, 0.0) + t
        measured[kind] = measured.get(kind, 0.0) + f.median + b.median
    return {k: roofline[k] / measured[k] for k in roofline if measured[k] > 0 and roofline[k] > 0}


def profile_text(run):
    """The run as a ddpsim calibration profile (scenarios/profiles/README.md, format 1)."""
    m = run.meta
    act = ACTIVATION_BYTES[m["precision"]]
    b = ddpsim_yaml.Block()
    b.comment("ddpsim calibration profile: SI units (seconds, bytes, bytes/s, FLOP/s).\n"
              "Format: scenarios/profiles/README.md. Measured by calibrate/pytorch/ddpsim_torch.py "
              "export --time.")
    b.key("format", 1)
    b.key("device", run.device)
    scaling = ("not scaled: %s" % run.total_from if m["device"] == "cuda" else
               "scaled by %.4g so that they add up to %s" % (run.scale, run.total_from))
    notes = ["PyTorch %s on %s: layer times measured inside whole training steps (%s), "
             "median of %d steps after %d warm-up steps, %s; optimizer = step + zero_grad; one "
             "plain training step (momentum) took %.6g s." %
             (m["torch"], m["device"], "CUDA events" if m["device"] == "cuda" else "wall clock",
              m["repeats"], m["warmup"], scaling, run.step)]
    if run.choices is not None:
        notes.append("framework choices: %s (the marked steps and the plain step alike)" %
                     run.choices.describe())
    if run.check:
        c = run.check
        text = ("check: layers %.6g s + optimizer %.6g s = %.6g s against the plain step's "
                "%.6g s (%+.1f %%)" % (c["layers_forward"] + c["layers_backward"],
                                       c["optimizer"], c["predicted_step"],
                                       c["plain_step"]["median"], 100 * c["gap"]))
        if "before_marks" in c:
            text += ("; the marks without the head start gave %.6g s (%+.1f %%)" %
                     (c["before_marks"]["predicted_step"], 100 * c["before_marks"]["gap"]))
        notes.append(text)
    b.key("notes", notes)
    b.open("runs")
    b.item({"model": m["model"], "batch": m["batch"], "precision": m["precision"],
            "sequence_length": m["sequence_length"]}, indent=2)
    b.open("layers", indent=4)
    for layer, f, bw in run.layers:
        flops = layer.cost.flops
        fwd_bytes = layer.cost.io * act
        b.item({"name": layer.name, "kind": layer.kind, "fwd": f.as_dict(), "bwd": bw.as_dict(),
                "fwd_flops": flops, "bwd_flops": layer.cost.bwd_flops, "fwd_bytes": fwd_bytes,
                "bwd_bytes": 2 * fwd_bytes}, indent=6)
    b.key("skipped", [], indent=4)
    b.open("optimizer", indent=4)
    for name in OPTIMIZERS:
        if name in run.optimizers:
            b.item({"optimizer": name, "params": m["params"],
                    "time": run.optimizers[name].as_dict()}, indent=6)
    b.open("ceilings")
    b.open("gemm", indent=2)
    for g in run.ceilings["gemm"]:
        b.item(g, indent=4)
    b.key("d2d", run.ceilings["d2d"], indent=2)
    b.key("roofline_efficiency", _roofline_efficiency(run))
    b.key("collectives", [])
    return b.text()


def predicted_step(run, optimizer="momentum"):
    """What ddpsim predicts for one single-GPU step from this profile: forward + backward of
    every layer + the optimizer update (compute_cost.h)."""
    return run.forward + run.backward + run.optimizer_time(optimizer)

