"""`ddpsim_torch.py ddp-step`: the user's model inside DistributedDataParallel, measured as
ddpsim needs it to predict the same job, and the job itself.

One process per rank (dist_env.py). In one run, on the ranks and links of the real job:

The job and its calibration alternate in `--rounds` rounds, so that both see the same machine
(other jobs on shared cores come and go within seconds). Each round:

1. **The job**: one untimed synchronised step, then `--steps / --rounds` timed plain DDP
   training steps (forward, loss, backward with DDP's bucketed all-reduce, SGD-with-momentum
   step, zero_grad). The median over all rounds is the measured step.
2. **Compute** (`no_sync`): two steps under `DDP.no_sync()` (the same work without the
   all-reduce). The second is the compute a rank does beside the other ranks on these cores,
   with the contention the job really has: ddpsim's `compute.step_time`. DDP broadcasts the
   model's buffers (batch-norm statistics) before every forward that follows a synchronised
   one, so in the job before every forward (`sync.buffer_broadcast`, whose size is recorded as
   `buffers`); the first no_sync step follows a synchronised step and pays it, the second does
   not: their difference is the broadcast as measured (`broadcast_s`). The untimed step that
   opens the next round follows a no_sync step, so it does not broadcast; the timed job steps
   after it do, as in training.
3. **Compute beside communication** (`compute.overlap_slowdown`): no_sync steps alone, then
   as many while a second thread all-reduces a bucket-sized tensor (at most 4 MiB) in a loop on
   a separate process group (Gloo's threads and the kernel's network stack share the cores with
   compute, as DDP's all-reduce does during backward), in `--overlap-pairs` alternating pairs
   (alone, beside; `--overlap-steps` steps and --overlap-seconds of each kind in all). Each
   pair's ratio of medians compares two adjacent windows, so other jobs' load that comes and
   goes over the measurement cancels instead of landing on one side (one block alone and then
   one beside read 1.52-1.57 at 1 Gbit/s on a 2-core machine at load 2.3-2.7, and predicted the
   job +27 % slow); the slowdown is the median of the pair ratios of the slowest rank.
4. **The last bucket's all-reduce**: after each round, one all-reduce of as many bytes as the
   bucket DDP fills last (its first layers' gradients, ready when backward ends, so nothing is
   left to hide it: the job step is at least the compute plus this), on the job's process group
   (`last_bucket_allreduce_s`, the median over rounds; 0 where DDP does not report its buckets).
5. **The device**: a square matrix product and a large copy on all ranks at once (FLOP/s and
   memory bandwidth per rank, with the other ranks busy too).

Rank 0 writes everything as JSON (`-o`): medians, every sample, per-rank values, 1-minute load
averages at every phase, threads, PyTorch version, host and CPU.
"""

import json
import os
import statistics
import threading
import time

import dist_env
import export


def add_arguments(parser):
    dist_env.add_arguments(parser)
    parser.add_argument("factory", help="MODULE:FACTORY, as for export")
    parser.add_argument("--input", action="append", default=[], metavar="SHAPE[:DTYPE[:HIGH]]",
                        help="one sample of a forward argument, as for export")
    parser.add_argument("--arg", action="append", metavar="KEY=VALUE",
                        help="keyword argument for the factory, as for export")
    parser.add_argument("--batch", type=int, default=32, help="samples per rank (default 32)")
    parser.add_argument("--bucket-cap-mb", type=float, default=25.0,
                        help="DDP's bucket_cap_mb (default 25)")
    parser.add_argument("--steps", type=int, default=6, help="timed steps of the job (default 6)")
    parser.add_argument("--rounds", type=int, default=3,
                        help="rounds of job steps and no_sync steps (default 3)")
    parser.add_argument("--overlap-steps", type=int, default=3,
                        help="no_sync steps alone and beside an all-reduce loop (default 3 each; "
                             "0: skip)")
    parser.add_argument("--overlap-seconds", type=float, default=0.5,
                        help="and at least this long, each (default 0.5)")
    parser.add_argument("--overlap-pairs", type=int, default=3,
                        help="alternating (alone, beside) pairs the overlap steps are split into, "
                             "so that load cancels in each pair's ratio (default 3)")
    parser.add_argument("--warmup", type=int, default=2, help="untimed steps first (default 2)")
    parser.add_argument("-o", "--output", help="JSON file rank 0 writes")


class Job:
    def __init__(self, a, device):
        import torch
        factory = export.load_factory(a.factory)
        torch.manual_seed(0)
        self.model = export.build_model(factory, export.parse_kwargs(a.arg)).to(device)
        self.ddp = torch.nn.parallel.DistributedDataParallel(
            self.model, bucket_cap_mb=a.bucket_cap_mb,
            device_ids=[device.index] if device.type == "cuda" else None)
        self.opt = torch.optim.SGD(self.ddp.parameters(), lr=1e-3, momentum=0.9)
        specs = [export.InputSpec(s) for s in a.input]
        if not specs:
            raise dist_env.DistError("give the model's input with --input (e.g. 3x224x224)")
        self.args, self.kwargs = export.make_inputs(specs, a.batch, device)
        self.cuda = device.type == "cuda"

    def step(self, sync=True):
        import contextlib
        import torch
        if self.cuda:
            torch.cuda.synchronize()
        start = time.perf_counter()
        with contextlib.nullcontext() if sync else self.ddp.no_sync():
            loss = export.compute_loss(self.ddp(*self.args, **self.kwargs), "auto")
            loss.backward()
        self.opt.step()
        self.opt.zero_grad()
        if self.cuda:
            torch.cuda.synchronize()
        return time.perf_counter() - start


def timed_block(job, steps, seconds):
    """no_sync steps: at least `steps` of them and at least `seconds` in all."""
    out, start = [], time.perf_counter()
    while len(out) < steps or time.perf_counter() - start < seconds:
        out.append(job.step(sync=False))
    return out


def last_bucket_bytes(ddp):
    """Bytes of the bucket DDP reduces last (after its buckets were rebuilt), or 0 when this
    PyTorch does not report them."""
    try:
        data = ddp._get_ddp_logging_data()
        sizes = str(data.get("rebuilt_bucket_sizes") or data.get("bucket_sizes") or "")
        return int(sizes.split(",")[-1]) if sizes.strip() else 0
    except (AttributeError, RuntimeError, ValueError):
        return 0


def timed_allreduce(nbytes, device):
    import torch
    import torch.distributed as dist
    buf = torch.zeros(max(1, int(nbytes) // 4), dtype=torch.float32, device=device)
    if device.type == "cuda":
        torch.cuda.synchronize()
    dist.barrier()  # the ranks leave their no_sync steps apart; a call must not time the wait
    start = time.perf_counter()
    dist.all_reduce(buf)
    if device.type == "cuda":
        torch.cuda.synchronize()
    return time.perf_counter() - start


def comm_loop(group, nbytes, device, stop, counter):
    """All-reduces a tensor of `nbytes` until every rank has set `stop`."""
    import torch
    import torch.distributed as dist
    buf = torch.zeros(max(1, int(nbytes) // 4), dtype=torch.float32, device=device)
    flag = torch.zeros(1, dtype=torch.float32, device=device)
    while True:
        dist.all_reduce(buf, group=group)
        counter[0] += 1
        flag.fill_(1.0 if stop.is_set() else 0.0)
        dist.all_reduce(flag, op=dist.ReduceOp.MIN, group=group)
        if flag.item() > 0:
            return


def device_ceilings(device):
    """FLOP/s of a square fp32 matrix product and bytes/s of a copy (read + write)."""
    import torch
    n = 1024
    x = torch.randn(n, n, device=device)
    y = torch.randn(n, n, device=device)
    torch.mm(x, y)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        torch.mm(x, y)
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    flops = 2.0 * n ** 3 / statistics.median(times)
    src = torch.ones(16 << 20, device=device)  # 64 MiB
    dst = torch.empty_like(src)
    dst.copy_(src)
    times = []
    for _ in range(5):
        start = time.perf_counter()
        dst.copy_(src)
        if device.type == "cuda":
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
    return flops, 2.0 * src.numel() * 4 / statistics.median(times)


def run(a):
    import torch
    import torch.distributed as dist
    if a.batch < 1 or a.rounds < 1 or a.steps < a.rounds or a.warmup < 1 or \
            a.overlap_steps < 0 or a.overlap_pairs < 1:
        raise dist_env.DistError("need --batch >= 1, --rounds >= 1, --steps >= --rounds, "
                                 "--warmup >= 1, --overlap-steps >= 0, --overlap-pairs >= 1")
    if a.bucket_cap_mb <= 0:
        raise dist_env.DistError("--bucket-cap-mb must be > 0")
    rank, world, device = dist_env.init(a)
    job = Job(a, device)
    loads = {"start": dist_env.load_average()}
    side = dist.new_group(backend=a.backend) if a.overlap_steps else None

    for _ in range(a.warmup):
        job.step()
    job_steps, synced, nosync, nosync_after_sync, last_bucket = [], [], [], [], []
    tail_bytes = 0
    for r in range(a.rounds):
        synced.append(job.step())  # opens the round; follows no_sync: no buffer broadcast
        per_round = a.steps // a.rounds + (1 if r < a.steps % a.rounds else 0)
        job_steps += [job.step() for _ in range(per_round)]
        nosync_after_sync.append(job.step(sync=False))  # pays the buffer broadcast
        nosync.append(job.step(sync=False))
        # the buckets as rebuilt after the first steps (every rank reads the same)
        tail_bytes = last_bucket_bytes(job.ddp)
        if tail_bytes:
            last_bucket.append(timed_allreduce(tail_bytes, device))
        loads["round%d" % r] = dist_env.load_average()

    alone, beside, pair_ratios, comm_calls = [], [], [], [0]
    grad_bytes = sum(p.numel() * p.element_size() for p in job.model.parameters()
                     if p.requires_grad)
    # A bucket-sized all-reduce, at most 4 MiB so that one call is short beside the window
    # (4 MiB over 100 Mbit/s takes 0.35 s); its CPU cost per byte is what slows compute.
    comm_bytes = min(a.bucket_cap_mb * 1024 * 1024, grad_bytes, 4 << 20)
    if a.overlap_steps:
        job.step(sync=False)  # from here on no forward broadcasts buffers (no synced step)
        steps = max(1, -(-a.overlap_steps // a.overlap_pairs))
        seconds = a.overlap_seconds / a.overlap_pairs
        for _ in range(a.overlap_pairs):
            alone_block = timed_block(job, steps, seconds)
            stop = threading.Event()
            thread = threading.Thread(target=comm_loop,
                                      args=(side, comm_bytes, device, stop, comm_calls))
            thread.start()
            time.sleep(0.05)
            beside_block = timed_block(job, steps, seconds)
            stop.set()
            thread.join()
            alone += alone_block
            beside += beside_block
            pair_ratios.append(statistics.median(beside_block) / statistics.median(alone_block))
        loads["overlap"] = dist_env.load_average()

    flops, copy_bw = device_ceilings(device)
    dist.barrier()
    loads["end"] = dist_env.load_average()

    buffers = [b for b in job.model.buffers()]
    mine = {
        "rank": rank, "host": dist_env.host_label(a), "pid": os.getpid(),
        "job_s": job_steps, "synced_s": synced, "nosync_s": nosync,
        "nosync_after_sync_s": nosync_after_sync, "last_bucket_s": last_bucket,
        "alone_s": alone, "beside_comm_s": beside, "overlap_pair_ratios": pair_ratios,
        "comm_calls_beside": comm_calls[0],
        "matmul_flops": flops, "copy_bytes_per_s": copy_bw, "loads": loads,
    }
    everyone = [None] * world
    dist.all_gather_object(everyone, mine)
    if rank == 0:
        med = statistics.median

        def slowest(key):
            return max(med(r[key]) for r in everyone if r[key])
        result = {
            "format": 1,
            "factory": a.factory, "inputs": a.input, "args": a.arg or [], "batch": a.batch,
            "bucket_cap_mb": a.bucket_cap_mb, "world_size": world, "backend": a.backend,
            "device": dist_env.device_name(device), "cpu": dist_env.cpu_model(),
            "cores": os.cpu_count(), "threads": torch.get_num_threads(),
            "torch": torch.__version__, "hosts": [r["host"] for r in everyone],
            # the job: rank 0's steps (synchronised steps end together on every rank)
            "step_s": med(job_steps),
            # compute per rank: the slowest rank's median no_sync step
            "nosync_step_s": slowest("nosync_s"),
            "round_opening_step_s": med(synced),
            # the bucket DDP fills last, reduced alone (the job cannot hide it)
            "last_bucket_bytes": tail_bytes,
            # the fastest rank's median: a rank that left the barrier first waits for the others
            # inside the call
            "last_bucket_allreduce_s": (min(med(r["last_bucket_s"]) for r in everyone)
                                        if tail_bytes else 0.0),
            # the buffer broadcast as measured: no_sync after a synced step minus after no_sync
            "broadcast_s": slowest("nosync_after_sync_s") - slowest("nosync_s"),
            # the slowest rank's median over the alternating pairs of beside / alone
            "overlap_slowdown": (max(med(r["overlap_pair_ratios"]) for r in everyone)
                                 if a.overlap_steps else 1.0),
            "overlap_comm_bytes": comm_bytes,
            "gradient_bytes": grad_bytes,
            "buffers": {"tensors": len(buffers),
                        "bytes": sum(b.numel() * b.element_size() for b in buffers)},
            "matmul_flops": min(r["matmul_flops"] for r in everyone),
            "copy_bytes_per_s": min(r["copy_bytes_per_s"] for r in everyone),
            "load_max": max(max(r["loads"].values()) for r in everyone),
            "ranks": everyone,
        }
        text = json.dumps(result, indent=1)
        if a.output:
            with open(a.output, "w") as f:
                f.write(text + "\n")
        print(json.dumps({k: v for k, v in result.items() if k != "ranks"}), flush=True)
    dist.destroy_process_group()
    return 0
