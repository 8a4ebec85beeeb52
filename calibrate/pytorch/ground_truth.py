#!/usr/bin/env python3
"""Ground truth on the machine at hand: real PyTorch DDP runs against ddpsim's prediction.

    sudo /usr/bin/python3 calibrate/pytorch/ground_truth.py --ddpsim build/sim/ddpsim \\
        --links 100Mbit,1Gbit --models mlp,mobilenet --caps 1,25 -o out/ground-truth

For every link (a rate, or `loopback`): N namespaces joined at that rate (netns.py; loopback:
none, all ranks on 127.0.0.1), then, with one process per rank (`ip netns exec`):

1. `ddpsim_torch.py allreduce`: a Gloo (or --backend) all-reduce sweep, printed like
   nccl-tests, up to the largest DDP bucket of the models; `ddpsim calibrate
   --import-nccl-tests` fits it as an alpha-beta table (`sync.alpha_beta`);
2. per model and bucket cap, `ddpsim_torch.py ddp-step`: the real DDP job (its median step is
   the measurement) and, in the same run, its compute under no_sync() and the compute slowdown
   beside an all-reduce (ddp_step.py);
3. a scenario of this machine (scenario_text()): one node per rank with the shaped link as its
   NIC (loopback: one node with N ranks), the model file from the exporter (DDP's real buckets),
   the measured no_sync step as `compute.step_time`, the measured slowdown as
   `compute.overlap_slowdown`, the fitted sweep as `sync.alpha_beta`, the model's buffers as
   `sync.buffer_broadcast` (DDP broadcasts them before every forward); `ddpsim simulate`
   predicts.

A point whose prediction misses by more than --tolerance while the machine was busy is measured
again, up to --repeat-busy more times (a miss on a quiet machine up to --repeat-quiet more times,
default 0). Busy: the 1-minute load average was above --busy-load (other jobs on these cores),
or the run's own window was not steady: its compute alone (the no_sync step, measured between
the job's steps) plus the all-reduce of the bucket DDP fills last (measured alone after each
round; ready when backward ends, nothing is left to hide it) took longer than the whole
synchronised job step beyond --tolerance, which no steady machine does (the job is that compute
plus communication of which that bucket is exposed), so load inflated what the run calibrated
and the prediction would inherit it (2026-11-29 CI: MobileNet at 1 Gbit/s, cap 25 MB, a no_sync
step of 0.2235 s beside a job step of 0.2200 s whose 3.7 MB last bucket takes about 0.03 s). A point whose attempts missed on both sides
(one above +tolerance, one below -tolerance) counts as busy too: each attempt calibrates its own
prediction on the same job, so a model error repeats with one sign. Every attempt and its load
are kept. Writes OUT/measurements.json (`ddpsim validate --measured`
reads it), OUT/table.md and prints the table. The namespaces are removed on exit, on Ctrl-C and
on SIGTERM; namespaces a killed launcher left are removed at start.

Exit: 0 done, 1 a run failed, 2 bad arguments, 3 namespaces unavailable (not root, no iproute2).
"""

import argparse
import datetime
import json
import os
import platform
import signal
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

import netns  # noqa: E402

PYTHON = "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else sys.executable
TORCH_TOOL = os.path.join(HERE, "ddpsim_torch.py")

# name: (factory, factory arguments, inputs, batch per rank)
MODELS = {
    # communication-heavy: 1.6 M parameters (6.3 MB of gradients), 50 MFLOP per sample
    "mlp": (os.path.join(HERE, "examples", "mlp.py") + ":build", [], ["1024"], 16),
    # compute-heavy at 1 Gbit/s: 1.5 M parameters, batch norm (buffers), 64x64 images
    "mobilenet": ("torchvision.models:mobilenet_v3_small", ["num_classes=10"], ["3x64x64"], 32),
    "resnet18": ("torchvision.models:resnet18", ["num_classes=10"], ["3x32x32"], 32),
    "resnet50": ("torchvision.models:resnet50", ["num_classes=10"], ["3x64x64"], 16),
}

children = []


def on_signal(signum, _frame):
    raise SystemExit(128 + signum)


def parse_rate(text):
    """'100Mbit', '1Gbit', '500kbit' -> bits/s; 'loopback' -> 0."""
    t = text.strip().lower()
    if t == "loopback":
        return 0
    for suffix, scale in (("gbit", 1e9), ("mbit", 1e6), ("kbit", 1e3)):
        if t.endswith(suffix):
            try:
                value = float(t[:-len(suffix)])
            except ValueError:
                break
            if value > 0:
                return value * scale
    raise ValueError("--links %s: expected a rate such as 100Mbit or 1Gbit, or loopback" % text)


def link_label(text):
    return text.strip().lower().replace(".", "p")


def load_average():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def run_ranks(net, ranks, tool_args, log_dir, tag, timeout):
    """Starts one rank process per namespace (or on loopback) and waits for all of them."""
    port = 29000 + (os.getpid() + int(time.time())) % 20000
    master = (net.addresses[0] if net else "127.0.0.1") + ":%d" % port
    procs = []
    for r in range(ranks):
        env = dict(os.environ, RANK=str(r), LOCAL_RANK=str(r), WORLD_SIZE=str(ranks), MASTER_ADDR=master.split(":")[0],
                   MASTER_PORT=str(port), DDPSIM_HOST_LABEL=(net.addresses[r] if net else platform.node()))
        # Ranks in namespaces still share this machine's cores: split them the same way.
        env["DDPSIM_LOCAL_RANKS"] = str(ranks)
        # Gloo binds to the address the host name resolves to unless told the interface.
        env["GLOO_SOCKET_IFNAME"] = "gt0" if net else "lo"
        cmd = (net.prefix(r) if net else []) + [PYTHON, TORCH_TOOL] + tool_args
        out = open(os.path.join(log_dir, "%s.rank%d.out" % (tag, r)), "w")
        err = open(os.path.join(log_dir, "%s.rank%d.err" % (tag, r)), "w")
        p = subprocess.Popen(cmd, env=env, stdout=out, stderr=err)
        procs.append((p, out, err))
        children.append(p)
    deadline = time.time() + timeout
    codes = []
    for p, out, err in procs:
        try:
            codes.append(p.wait(timeout=max(1, deadline - time.time())))
        except subprocess.TimeoutExpired:
            for q, _, _ in procs:
                q.kill()
            codes.append(-9)
        out.close()
        err.close()
        children.remove(p)
    if any(codes):
        errs = [open(os.path.join(log_dir, "%s.rank%d.err" % (tag, r))).read()[-1500:]
                for r in range(ranks)]
        raise RuntimeError("%s: rank exit codes %s\n%s" % (tag, codes, "\n".join(errs)))
    with open(os.path.join(log_dir, "%s.rank0.out" % tag)) as f:
        return f.read()


def ddpsim(binary, args):
    r = subprocess.run([binary] + args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("ddpsim %s: %s" % (" ".join(args), r.stderr.strip() or r.stdout))
    return r.stdout


def export_model(key, out_dir):
    factory, fargs, inputs, batch = MODELS[key]
    path = os.path.join(out_dir, key + ".yaml")
    cmd = [PYTHON, TORCH_TOOL, "export", factory, "--batch", str(batch), "--name", key, "-o", path]
    for i in inputs:
        cmd += ["--input", i]
    for x in fargs:
        cmd += ["--arg", x]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("export %s: %s" % (key, r.stderr.strip()))
    return path


def largest_bucket(binary, model_file, cap_mb):
    text = ddpsim(binary, ["models", model_file, "--buckets", "--json", "--bucket-cap",
                           "%gMiB" % cap_mb])
    return max(b["bytes"] for b in json.loads(text)["buckets"]["list"])


def scenario_text(point, step, comm_file, model_file, ranks, rate, cores):
    """The machine at hand as a ddpsim scenario (see the module doc)."""
    loopback = rate == 0
    mem_kib = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem_kib = int(line.split()[1])
    per_rank = max(1, mem_kib // max(1, ranks if loopback else 1)) * 1024
    gpu = ('{name: "%s", fp32: %.6gFLOPS, memory: %dB, hbm_bandwidth: %.6gB/s}' %
           (step["device"], step["matmul_flops"], per_rank, step["copy_bytes_per_s"]))
    lines = [
        "# %s: generated by calibrate/pytorch/ground_truth.py from measurements on this machine"
        % point,
        "name: %s" % point,
        "cluster:",
        "  nodes: %d" % (1 if loopback else ranks),
        "  gpus_per_node: %d" % (ranks if loopback else 1),
        "  gpu: " + gpu,
        "  pcie: 100GB/s   # a CPU rank's tensors stay in host memory: no PCIe link binds",
        "  cpu_cores: %d" % cores,
    ]
    if loopback:
        lines.append("  intra_node: {kind: pcie}   # costs come from sync.alpha_beta")
    else:
        lines.append("  nic: {bandwidth: %gbps, transport: tcp}   # costs come from "
                     "sync.alpha_beta" % rate)
    buffers = step["buffers"]["bytes"]
    lines += [
        "model: {file: %s}" % os.path.basename(model_file),
        "training: {batch_per_gpu: %d, precision: fp32, optimizer: momentum, iterations: 4, "
        "warmup: 1}" % step["batch"],
        "sync: {bucket_cap: %gMiB, overlap: true, alpha_beta: %s%s}" %
        (step["bucket_cap_mb"], os.path.basename(comm_file),
         ", buffer_broadcast: %dB" % buffers if buffers else ""),
        "compute: {mode: measured, step_time: %.6gs, overlap_slowdown: %.4g}" %
        (step["nosync_step_s"], max(1.0, step["overlap_slowdown"])),
    ]
    return "\n".join(lines) + "\n"


def unsteady(step, tolerance):
    """The window's compute alone, plus the all-reduce the job cannot hide (its last bucket's),
    took longer than the job it is part of (beyond tolerance)."""
    floor = step["nosync_step_s"] + step.get("last_bucket_allreduce_s", 0.0)
    return floor > step["step_s"] * (1 + tolerance)


def busy_run(step, busy_load, tolerance):
    return step["load_max"] > busy_load or unsteady(step, tolerance)


def two_sided_misses(attempts, tolerance):
    """Attempts of one point missed on both sides (one above +tolerance, one below -tolerance).

    Every attempt measures the same job and calibrates its own prediction, so an error of the
    model repeats with one sign; misses of both signs say that the machine's speed changed
    between (or within) attempts, as busy does."""
    return (any(t["error"] > tolerance for t in attempts) and
            any(t["error"] < -tolerance for t in attempts))


def predict(binary, scenario_path):
    out_dir = os.path.splitext(scenario_path)[0] + ".out"
    ddpsim(binary, ["simulate", scenario_path, "-o", out_dir, "--no-baseline"])
    with open(os.path.join(out_dir, "results.json")) as f:
        return json.load(f)["result"]["iteration_time_s"]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ddpsim", required=True, help="the ddpsim binary")
    parser.add_argument("--links", default="100Mbit,1Gbit",
                        help="comma-separated link rates (100Mbit, 1Gbit) and/or loopback")
    parser.add_argument("--ranks", default="2",
                        help="comma-separated rank counts (default 2); counts above the cores "
                             "are skipped with a note")
    parser.add_argument("--campaign", action="store_true",
                        help="the longer campaign: --links loopback,100Mbit,1Gbit --models "
                             "mlp,mobilenet,resnet50 --ranks 2,4 (4 where the cores allow)")
    parser.add_argument("--models", default="mlp,mobilenet",
                        help="comma-separated, from: %s" % ", ".join(MODELS))
    parser.add_argument("--caps", default="1,25", help="DDP bucket_cap_mb values (default 1,25)")
    parser.add_argument("--backend", default="gloo", choices=("gloo", "nccl", "mpi"))
    parser.add_argument("--device", default="cpu", choices=("cpu", "cuda"))
    parser.add_argument("--steps", type=int, default=6, help="timed DDP steps per point")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of job and no_sync steps per point (default 3)")
    parser.add_argument("--tolerance", type=float, default=0.10,
                        help="a miss beyond this fraction on a busy machine is measured again")
    parser.add_argument("--busy-load", type=float, default=0,
                        help="1-minute load average above which the machine counts as busy "
                             "(default: the core count + 1)")
    parser.add_argument("--repeat-busy", type=int, default=2,
                        help="more attempts for a point that missed while busy (default 2)")
    parser.add_argument("--repeat-quiet", type=int, default=0,
                        help="more attempts for a point that missed while not busy (default 0; "
                             "for a VM whose speed changes within seconds whatever its load)")
    parser.add_argument("--overlap-seconds", type=float, default=0.5,
                        help="ddp-step's compute-beside-communication blocks (default 0.5 s)")
    parser.add_argument("--time-budget", type=float, default=0,
                        help="no repeated attempt starts after this many seconds (default: none)")
    parser.add_argument("--timeout", type=float, default=600, help="seconds per rank run")
    parser.add_argument("-o", "--out", required=True, help="output folder")
    a = parser.parse_args(argv)
    if a.campaign:
        a.links, a.models, a.ranks = "loopback,100Mbit,1Gbit", "mlp,mobilenet,resnet50", "2,4"
    try:
        links = [(t.strip(), parse_rate(t)) for t in a.links.split(",") if t.strip()]
        caps = [float(c) for c in a.caps.split(",")]
        models = [m.strip() for m in a.models.split(",")]
        for m in models:
            if m not in MODELS:
                raise ValueError("--models %s: unknown; allowed: %s" % (m, ", ".join(MODELS)))
        rank_counts = [int(r) for r in a.ranks.split(",")]
        if min(rank_counts) < 2 or any(c <= 0 for c in caps):
            raise ValueError("need --ranks >= 2 and --caps > 0")
    except ValueError as e:
        print("error: %s" % e, file=sys.stderr)
        return 2
    cores = os.cpu_count() or 1
    for n in [r for r in rank_counts if r > cores]:
        print("note: %d ranks skipped: this machine has %d cores (ranks would share cores with "
              "each other, not only with their communication threads)" % (n, cores))
    rank_counts = [r for r in rank_counts if r <= cores]
    if not rank_counts:
        print("error: no rank count fits %d cores" % cores, file=sys.stderr)
        return 2
    busy_load = a.busy_load or cores + 1
    if any(rate > 0 for _, rate in links):
        why = netns.available()
        if why:
            print("error: %s" % why, file=sys.stderr)
            return 3
        stale = netns.remove_stale()
        if stale:
            print("removed namespaces a killed launcher left: %s" % ", ".join(stale))
    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)
    os.makedirs(a.out, exist_ok=True)
    logs = os.path.join(a.out, "logs")
    os.makedirs(logs, exist_ok=True)
    started = datetime.datetime.now(datetime.timezone.utc)

    t0 = time.time()
    model_files = {m: export_model(m, a.out) for m in models}
    print("exported %s [%.0f s]" % (", ".join(models), time.time() - t0), flush=True)
    biggest = max(largest_bucket(a.ddpsim, model_files[m], c) for m in models for c in caps)
    sweep_max = 8
    while sweep_max < biggest:
        sweep_max *= 2

    points = []
    try:
        for ranks, (text, rate) in [(n, l) for n in rank_counts for l in links]:
            label = link_label(text) + ("" if ranks == 2 else "-%dx" % ranks)
            net = netns.Network(ranks, rate) if rate > 0 else None
            with net if net else _Null():
                sweep_log = os.path.join(a.out, "allreduce-%s.log" % label)
                run_ranks(net, ranks, ["allreduce", "-b", "8", "-e", str(sweep_max),
                                         "-w", "1", "--backend", a.backend, "--device",
                                         a.device, "-o", sweep_log],
                          logs, "allreduce-" + label, a.timeout)
                comm_file = os.path.join(a.out, "allreduce-%s.yaml" % label)
                ddpsim(a.ddpsim, ["calibrate", "--import-nccl-tests", sweep_log, "-o", comm_file])
                print("all-reduce sweep %s, %d ranks, 8 B to %d B [%.0f s]" % (
                    text, ranks, sweep_max, time.time() - t0), flush=True)
                for m in models:
                    factory, fargs, inputs, batch = MODELS[m]
                    for cap in caps:
                        point = "local-%s-%s-%dx-cap%g" % (m, link_label(text), ranks, cap)
                        attempts = []
                        quiet_misses = busy_misses = 0
                        for attempt in range(1 + a.repeat_busy + a.repeat_quiet):
                            step_file = os.path.join(a.out, "%s.step%d.json" % (point, attempt))
                            args = ["ddp-step", factory, "--batch", str(batch), "--bucket-cap-mb",
                                    "%g" % cap, "--steps", str(a.steps), "--rounds", str(a.rounds),
                                    "--overlap-seconds", "%g" % a.overlap_seconds,
                                    "--backend", a.backend, "--device", a.device,
                                    "-o", step_file]
                            for i in inputs:
                                args += ["--input", i]
                            for x in fargs:
                                args += ["--arg", x]
                            run_ranks(net, ranks, args, logs, "%s.%d" % (point, attempt),
                                      a.timeout)
                            with open(step_file) as f:
                                step = json.load(f)
                            scenario = os.path.join(a.out, point + ".yaml")
                            with open(scenario, "w") as f:
                                f.write(scenario_text(point, step, comm_file, model_files[m],
                                                      ranks, rate, cores))
                            predicted = predict(a.ddpsim, scenario)
                            error = predicted / step["step_s"] - 1
                            attempts.append({"measured_s": step["step_s"],
                                             "predicted_s": predicted, "error": error,
                                             "load": step["load_max"],
                                             "nosync_step_s": step["nosync_step_s"],
                                             "last_bucket_allreduce_s":
                                                 step.get("last_bucket_allreduce_s", 0.0),
                                             "unsteady": unsteady(step, a.tolerance),
                                             "step_file": step_file})
                            print("%s attempt %d: measured %.4f s, predicted %.4f s (%+.1f %%), "
                                  "load %.2f [%.0f s]" % (point, attempt + 1, step["step_s"],
                                                         predicted, 100 * error, step["load_max"],
                                                         time.time() - t0), flush=True)
                            if abs(error) <= a.tolerance:
                                break
                            if not busy_run(step, busy_load, a.tolerance):
                                quiet_misses += 1
                                if quiet_misses > a.repeat_quiet:
                                    break
                            else:
                                busy_misses += 1
                                if busy_misses > a.repeat_busy:
                                    break
                            if a.time_budget and time.time() - t0 > a.time_budget:
                                print("%s: no more attempts, the time budget (%g s) is spent" %
                                      (point, a.time_budget), flush=True)
                                break
                        noisy = two_sided_misses(attempts, a.tolerance)
                        points.append({
                            "id": point, "scenario": os.path.basename(scenario),
                            "measured_s": step["step_s"], "predicted_s": predicted,
                            "load": step["load_max"],
                            "busy": busy_run(step, busy_load, a.tolerance) or noisy,
                            "two_sided_misses": noisy,
                            "unsteady": unsteady(step, a.tolerance),
                            "model": m, "link": text, "ranks": ranks, "bucket_cap_mb": cap,
                            "nosync_step_s": step["nosync_step_s"],
                            "last_bucket_allreduce_s": step.get("last_bucket_allreduce_s", 0.0),
                            "overlap_slowdown": step["overlap_slowdown"],
                            "threads": step["threads"], "buffers_bytes": step["buffers"]["bytes"],
                            "broadcast_measured_s": step["broadcast_s"],
                            "attempts": attempts})
    finally:
        for p in list(children):
            p.kill()
    measurements = {
        "format": 1,
        "source": "calibrate/pytorch/ground_truth.py on %s (%d cores, %s), %s" % (
            platform.node(), cores, _cpu(), started.strftime("%Y-%m-%d %H:%M UTC")),
        "busy_load": busy_load,
        "cases": [{"id": p["id"], "scenario": p["scenario"], "metric": "iteration_time",
                   "measured": p["measured_s"], "unit": "s", "load": p["load"],
                   "note": "%s, %s, %d ranks, bucket_cap_mb %g, load %.2f" % (
                       p["model"], p["link"], p["ranks"], p["bucket_cap_mb"], p["load"])}
                  for p in points],
        "points": points,
    }
    with open(os.path.join(a.out, "measurements.json"), "w") as f:
        json.dump(measurements, f, indent=1)
    table = format_table(points, started, cores, a)
    with open(os.path.join(a.out, "table.md"), "w") as f:
        f.write(table)
    print(table)
    return 0


def _cpu():
    with open("/proc/cpuinfo") as f:
        for line in f:
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    return platform.machine()


def format_table(points, started, cores, a):
    out = ["%s, %s: %d cores (%s), %s %s" % (
        started.strftime("%Y-%m-%d %H:%M UTC"), platform.node(), cores, _cpu(), a.backend,
        a.device), "",
        "| point | measured (s) | predicted (s) | error | no_sync step (s) | overlap slowdown "
        "| load | attempts |",
        "|---|---|---|---|---|---|---|---|"]
    for p in points:
        out.append("| %s | %.4f | %.4f | %+.1f %% | %.4f | %.2f | %.2f | %d |" % (
            p["id"], p["measured_s"], p["predicted_s"],
            100 * (p["predicted_s"] / p["measured_s"] - 1), p["nosync_step_s"],
            p["overlap_slowdown"], p["load"], len(p["attempts"])))
    return "\n".join(out) + "\n"


class _Null:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


if __name__ == "__main__":
    try:
        sys.exit(main())
    except RuntimeError as e:
        print("error: %s" % e, file=sys.stderr)
        sys.exit(1)
