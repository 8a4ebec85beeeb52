"""`ddpsim_torch.py allreduce`: an all-reduce sweep through torch.distributed, printed as
NVIDIA's nccl-tests prints all_reduce_perf, so `ddpsim calibrate --import-nccl-tests` and
`--fit-platform` read it as they read nccl-tests (sim/measurements/nccl_tests_import.h).

One process per rank (dist_env.py says how they meet). Rank 0 prints, like nccl-tests: the
`# nThread ...` line, one `#  Rank N Group 0 Pid P on HOST device D [bus] NAME` line per rank
(so the importer knows the ranks, the hosts, and so the nodes, and the device), a `# Backend`
line (the importer records it as the table's backend), the two header lines and one row per
size with out-of-place and in-place columns.

torch.distributed.all_reduce works in place, which is what DDP does with its buckets. Both
halves of a row therefore time the same in-place call, on two buffers, alternating iteration by
iteration (so each half is an independent measurement of the same thing at no extra cost).
A size's time is the slowest rank's mean per call, after --warmup calls; the number of calls
adapts to the size: at least one per half, at most --iters, and no more than --seconds-per-size
worth (a 64 MiB all-reduce over a 100 Mbit/s link takes seconds). #wrong counts wrong elements
of the first call (every rank contributes rank + 1).
"""

import os
import time

import dist_env

FORMAT = "%12d  %12d  %8s  %6s  %6d  %7s  %6.2f  %6.2f  %5s"
HALF = "  %7s  %6.2f  %6.2f  %5s"


def parse_size(text):
    """nccl-tests' sizes: an integer with an optional K, M or G (powers of 1024)."""
    scale = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:].upper(), 1)
    digits = text[:-1] if scale > 1 else text
    if not digits.isdigit():
        raise dist_env.DistError("size %s: expected a number of bytes such as 8, 64K or 32M" %
                                 text)
    return int(digits) * scale


def nccl_time(seconds):
    us = seconds * 1e6
    if us >= 10000:
        return "%7.0f" % us
    if us >= 100:
        return "%7.1f" % us
    return "%7.2f" % us


def sizes(begin, end, factor):
    out, s = [], begin
    while s <= end:
        out.append(s)
        s *= factor
    return out


def add_arguments(parser):
    dist_env.add_arguments(parser)
    parser.add_argument("-b", "--minbytes", default="8", help="smallest size (default 8)")
    parser.add_argument("-e", "--maxbytes", default="64M", help="largest size (default 64M)")
    parser.add_argument("-f", "--stepfactor", type=int, default=2, help="size factor (default 2)")
    parser.add_argument("-n", "--iters", type=int, default=20,
                        help="calls per size at most, both halves together (default 20)")
    parser.add_argument("-w", "--warmup_iters", type=int, default=2,
                        help="untimed calls per size (default 2)")
    parser.add_argument("--seconds-per-size", type=float, default=1.0,
                        help="time budget per size: fewer calls for large sizes (default 1)")
    parser.add_argument("-o", "--output", help="also write the table to this file (rank 0)")


def run(a):
    import torch
    import torch.distributed as dist
    begin, end = parse_size(a.minbytes), parse_size(a.maxbytes)
    if begin < 4 or end < begin or a.stepfactor < 2 or a.iters < 2 or a.warmup_iters < 1:
        raise dist_env.DistError("need 4 <= -b <= -e, -f >= 2, -n >= 2, -w >= 1")
    rank, world, device = dist_env.init(a)
    lines = []
    me = "%s|%d|%s" % (dist_env.host_label(a), os.getpid(), dist_env.device_name(device))
    everyone = dist_env.gather_strings(me, world)
    lines.append("# nThread 1 nGpus 1 minBytes %d maxBytes %d step: %d(factor) warmup iters: %d "
                 "iters: %d agg iters: 1 validation: 1 graph: 0" %
                 (begin, end, a.stepfactor, a.warmup_iters, a.iters))
    lines.append("#")
    lines.append("# Using devices")
    for r, text in enumerate(everyone):
        host, pid, name = text.split("|", 2)
        bus = "[cpu]" if device.type == "cpu" else "[0x%02x]" % r
        lines.append("#  Rank %2d Group  0 Pid %6s on %10s device %2d %s %s" %
                     (r, pid, host, 0 if device.type == "cpu" else device.index, bus, name))
    lines.append("# Backend %s (torch.distributed, PyTorch %s)" % (a.backend, torch.__version__))
    lines.append("# torch.distributed.all_reduce is in place: both halves time the in-place call "
                 "(alternate calls, two buffers)")
    lines.append("# load average at start: %.2f" % dist_env.load_average())
    lines.append("#")
    lines.append("#                                                              out-of-place   "
                 "                    in-place          ")
    lines.append("#       size         count      type   redop    root     time   algbw   busbw "
                 "#wrong     time   algbw   busbw #wrong")
    lines.append("#        (B)    (elements)                               (us)  (GB/s)  (GB/s) "
                 "           (us)  (GB/s)  (GB/s)       ")
    if rank == 0:
        print("\n".join(lines), flush=True)
    factor = 2.0 * (world - 1) / world if world > 1 else 0.0
    busbw_sum, rows = 0.0, 0
    for size in sizes(begin, end, a.stepfactor):
        count = size // 4
        bufs = [torch.empty(count, dtype=torch.float32, device=device) for _ in range(2)]
        bufs[0].fill_(rank + 1)
        dist.barrier()
        start = time.perf_counter()
        dist.all_reduce(bufs[0])
        first = time.perf_counter() - start
        expected = world * (world + 1) / 2
        wrong = int((bufs[0] != expected).sum().item())
        for b in bufs:
            b.zero_()  # zeros stay zeros: the timed calls never overflow
        for _ in range(a.warmup_iters - 1):
            dist.all_reduce(bufs[1])
        # Every rank must make the same number of calls: the slowest first call decides.
        # On the buffers' device: NCCL has no CPU tensors ("No backend type associated with
        # device type cpu", seen on an H200).
        t = torch.tensor([first], dtype=torch.float64, device=device)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        calls = max(2, min(a.iters, int(a.seconds_per_size / max(t.item(), 1e-9))))
        spent = [0.0, 0.0]
        done = [0, 0]
        dist.barrier()
        for i in range(calls):
            half = i % 2
            if device.type == "cuda":
                torch.cuda.synchronize()
            start = time.perf_counter()
            dist.all_reduce(bufs[half])
            if device.type == "cuda":
                torch.cuda.synchronize()
            spent[half] += time.perf_counter() - start
            done[half] += 1
        mean = torch.tensor([spent[0] / done[0], spent[1] / done[1], float(wrong)],
                            dtype=torch.float64, device=device)
        dist.all_reduce(mean, op=dist.ReduceOp.MAX)
        out_s, in_s, wrong_all = mean.tolist()
        alg_out, alg_in = size / out_s / 1e9, size / in_s / 1e9
        busbw_sum += alg_out * factor
        rows += 1
        row = FORMAT % (size, count, "float", "sum", -1, nccl_time(out_s), alg_out,
                        alg_out * factor, str(int(wrong_all))) + \
            HALF % (nccl_time(in_s), alg_in, alg_in * factor, str(int(wrong_all)))
        lines.append(row)
        if rank == 0:
            print(row, flush=True)
    tail = ["# Out of bounds values : 0 OK",
            "# Avg bus bandwidth    : %g " % (busbw_sum / max(rows, 1)),
            "# load average at end: %.2f" % dist_env.load_average(),
            "#"]
    lines += tail
    if rank == 0:
        print("\n".join(tail), flush=True)
        if a.output:
            with open(a.output, "w") as f:
                f.write("\n".join(lines) + "\n")
    dist.destroy_process_group()
    return 0
