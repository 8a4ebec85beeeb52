"""PCIe on a real GPU, for the link model of docs/transports.md: every GPU has one PCIe link per
direction (gpu.pcie.up, gpu.pcie.down), and traffic staged through host memory (NCCL's SHM
transport without peer-to-peer, GPUDirect off) crosses the sender's up link, host memory twice
and the receiver's down link, pipelined in chunks. On one GPU this measures, with pinned host
buffers and CUDA events (medians of --repeats after warm-up):

  h2d, d2h          each direction alone;
  duplex            both at once on two streams (separate up and down links: each keeps its rate);
  staged            a buffer sent GPU -> host -> GPU in --chunk pieces, D2H of chunk k+1 beside
                    the H2D of chunk k (two streams, double-buffered host chunks): the model's
                    S / min(B_d2h, B_h2d) while host memory does not bind; a non-pipelined copy
                    would take S / B_d2h + S / B_h2d;
  host              a CPU copy between two pinned buffers (bytes read + written / time).

Prints one JSON object; the round trip is checked byte for byte against the source.

    python3 tests/torch/pcie_duplex.py --bytes 1G --chunk 4M
"""
import argparse
import json
import statistics
import time

import torch


def size(text):
    units = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}
    return int(text[:-1]) * units[text[-1]] if text[-1] in units else int(text)


def timed(fn, repeats, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(repeats):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    return statistics.median(times), times


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--bytes", default="1G")
    p.add_argument("--chunk", default="4M")
    p.add_argument("--repeats", type=int, default=10)
    args = p.parse_args()
    n, chunk = size(args.bytes), size(args.chunk)
    assert n % chunk == 0
    torch.manual_seed(0)
    dev = torch.randint(0, 256, (n,), dtype=torch.uint8, device="cuda")
    dev_in = torch.empty_like(dev)
    dev_out = torch.empty_like(dev)
    host_a = torch.randint(0, 256, (n,), dtype=torch.uint8).pin_memory()
    host_b = torch.empty(n, dtype=torch.uint8).pin_memory()
    up, down = torch.cuda.Stream(), torch.cuda.Stream()
    cur = torch.cuda.current_stream()

    def h2d():
        dev_in.copy_(host_a, non_blocking=True)

    def d2h():
        host_b.copy_(dev, non_blocking=True)

    def duplex():
        up.wait_stream(cur)
        down.wait_stream(cur)
        with torch.cuda.stream(up):
            host_b.copy_(dev, non_blocking=True)
        with torch.cuda.stream(down):
            dev_in.copy_(host_a, non_blocking=True)
        cur.wait_stream(up)
        cur.wait_stream(down)

    # Staged: two host chunk buffers; chunk k goes down (D2H on `up`) into buffer k % 2 once the
    # H2D of chunk k-2 from the same buffer has finished, and comes back (H2D on `down`) after
    # its own D2H.
    stage = [torch.empty(chunk, dtype=torch.uint8).pin_memory() for _ in range(2)]
    chunks = n // chunk

    def staged():
        up.wait_stream(cur)
        down.wait_stream(cur)
        sent = [None] * chunks
        back = [None] * chunks
        for k in range(chunks):
            buf = stage[k % 2]
            with torch.cuda.stream(up):
                if k >= 2:
                    up.wait_event(back[k - 2])
                buf.copy_(dev[k * chunk:(k + 1) * chunk], non_blocking=True)
                sent[k] = torch.cuda.Event()
                sent[k].record(up)
            with torch.cuda.stream(down):
                down.wait_event(sent[k])
                dev_out[k * chunk:(k + 1) * chunk].copy_(buf, non_blocking=True)
                back[k] = torch.cuda.Event()
                back[k].record(down)
        cur.wait_stream(up)
        cur.wait_stream(down)

    result = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__,
              "cuda": torch.version.cuda, "bytes": n, "chunk": chunk, "repeats": args.repeats}
    for name, fn in [("h2d", h2d), ("d2h", d2h), ("duplex", duplex), ("staged", staged)]:
        t, all_t = timed(fn, args.repeats)
        result[name] = {"seconds": t, "GBps": n / t / 1e9, "all_seconds": all_t}
    dev_out.zero_()
    staged()
    torch.cuda.synchronize()
    result["staged_round_trip_exact"] = bool(torch.equal(dev_out, dev))
    # Host memory: a CPU copy between pinned buffers, read + written bytes.
    times = []
    for _ in range(5):
        t0 = time.perf_counter()
        host_b.copy_(host_a)
        times.append(time.perf_counter() - t0)
    result["host_copy"] = {"seconds": statistics.median(times),
                           "GBps_read_plus_write": 2 * n / statistics.median(times) / 1e9,
                           "threads": torch.get_num_threads()}
    b_d2h, b_h2d = result["d2h"]["GBps"], result["h2d"]["GBps"]
    result["model"] = {
        "duplex_each_GBps": [b_d2h, b_h2d],
        "staged_GBps_pipelined": min(b_d2h, b_h2d),
        "staged_GBps_if_serial": 1 / (1 / b_d2h + 1 / b_h2d),
    }
    print(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
