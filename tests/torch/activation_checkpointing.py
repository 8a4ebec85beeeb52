"""Activation checkpointing on a real device: step time and activation memory of GPT-2 (the plain
PyTorch copy of HF GPT2LMHeadModel in calibrate/pytorch/examples/transformers_local.py) with and
without torch.utils.checkpoint on every block, the way FSDP's apply_activation_checkpointing wraps
each decoder layer. Prints one JSON object: per configuration the median step time and the
memory the step adds on top of weights and optimizer state (peak allocated - allocated before
forward). ddpsim's model of the same (training.activation_checkpointing, docs/sharding.md) is
compared with it in docs/sharding.md.

    python3 tests/torch/activation_checkpointing.py --device cuda --batch 8 --layers 12
"""
import argparse
import json
import os
import statistics
import sys
import time

import torch
import torch.nn.functional as F
from torch.utils.checkpoint import checkpoint

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "calibrate", "pytorch", "examples"))
import transformers_local  # noqa: E402


class Checkpointed(torch.nn.Module):
    def __init__(self, block):
        super().__init__()
        self.block = block

    def forward(self, x):
        return checkpoint(self.block, x, use_reentrant=False)


def build(args, checkpointing):
    torch.manual_seed(0)
    model = transformers_local.GPT2LMHeadModel(hidden=args.hidden, layers=args.layers,
                                               heads=args.heads, max_positions=args.seq)
    if checkpointing:
        model.transformer.h = torch.nn.ModuleList(Checkpointed(b) for b in model.transformer.h)
    return model.to(args.device)


def run(args, checkpointing):
    model = build(args, checkpointing)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    ids = torch.randint(0, 50257, (args.batch, args.seq), device=args.device)
    sync = torch.cuda.synchronize if args.device == "cuda" else (lambda: None)
    times, added = [], []
    for step in range(args.warmup + args.steps):
        opt.zero_grad(set_to_none=True)
        sync()
        before = torch.cuda.memory_allocated() if args.device == "cuda" else 0
        if args.device == "cuda":
            torch.cuda.reset_peak_memory_stats()
        start = time.perf_counter()
        with torch.autocast(args.device, dtype=torch.bfloat16):
            logits = model(ids)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)).float(), ids.view(-1))
        loss.backward()
        opt.step()
        sync()
        if step >= args.warmup:
            times.append(time.perf_counter() - start)
            if args.device == "cuda":
                added.append(torch.cuda.max_memory_allocated() - before)
    params = sum(p.numel() for p in model.parameters())
    return {"step_s": statistics.median(times), "step_spread": (max(times) - min(times)) /
            statistics.median(times), "peak_added_bytes": max(added) if added else 0,
            "params": params}


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--device", default="cuda")
    p.add_argument("--batch", type=int, default=8)
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--hidden", type=int, default=768)
    p.add_argument("--layers", type=int, default=12)
    p.add_argument("--heads", type=int, default=12)
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--steps", type=int, default=10)
    args = p.parse_args()
    out = {"device": torch.cuda.get_device_name() if args.device == "cuda" else "cpu",
           "torch": torch.__version__, "batch": args.batch, "seq": args.seq,
           "hidden": args.hidden, "layers": args.layers, "heads": args.heads,
           "precision": "bf16 autocast", "optimizer": "adam"}
    for ckpt in (False, True):
        out["checkpointing" if ckpt else "plain"] = run(args, ckpt)
        if args.device == "cuda":
            torch.cuda.empty_cache()
    out["time_ratio"] = out["checkpointing"]["step_s"] / out["plain"]["step_s"]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()
