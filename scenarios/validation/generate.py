#!/usr/bin/env python3
"""Writes the validation scenarios of scenarios/validation/ from one table of published
measurements and ONE set of model assumptions (docs/model-assumptions.md).

    python3 scenarios/validation/generate.py        # rewrites every generated *.yaml

Why a generator: every case must use the same global assumptions (effective NVLink, PCIe and NIC
bandwidth as a fraction of line rate, latencies, how each framework reduces gradients). Writing
them here once, and the per-case facts (hardware, batch, precision, the single-GPU calibration
measurement) in the CASES table, makes a per-case tweak visible in review. Each generated file
repeats, in comments, the source, the calibration and every assumption it uses, so it can be read
and run on its own. Standard library only. tf-dgx1-real-vs-synthetic/ is written by hand (issue 4)
and is left alone.
"""

import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside the scenarios

# The generator's parts, by role: the global assumptions, the hardware, the frameworks, writing a
# case file, and the case tables by source.
from gen_case_files import HERE, WRITTEN  # noqa: E402
from gen_cases_collectives import nccl  # noqa: E402
from gen_cases_llm_foundry import llm_foundry  # noqa: E402
from gen_cases_mxnet import mxnet_large_scale  # noqa: E402
from gen_cases_pytorch import bert_dle, ptddpb, resnet50_dle, transformer_dle, wgp  # noqa: E402
from gen_cases_lambda import lambda_bert_base_squad, lambda_resnet50  # noqa: E402
from gen_cases_tensorflow import (bugliarello, tensorpack_multigpu, tf_benchmarks,  # noqa: E402
                                  tf_benchmarks_aws_batch32, tf_benchmarks_k80_servers)


def main():
    resnet50_dle()
    bert_dle()
    transformer_dle()
    ptddpb()
    wgp()
    tf_benchmarks()
    tf_benchmarks_k80_servers()
    tf_benchmarks_aws_batch32()
    tensorpack_multigpu()
    bugliarello()
    lambda_resnet50()
    lambda_bert_base_squad()
    nccl()
    llm_foundry()
    mxnet_large_scale()
    # A case renamed or dropped from the table must not linger as a stale file.
    for folder in {os.path.dirname(p) for p in WRITTEN}:
        for name in os.listdir(folder):
            path = os.path.join(folder, name)
            if name.endswith(".yaml") and path not in WRITTEN:
                os.remove(path)
                print(f"removed stale {path}", file=sys.stderr)
    print(f"wrote {len(WRITTEN)} scenarios under {HERE}", file=sys.stderr)


if __name__ == "__main__":
    main()
