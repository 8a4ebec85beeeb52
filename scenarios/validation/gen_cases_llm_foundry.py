"""The MosaicML llm-foundry FSDP cases (group sharding). Part of generate.py."""

# Star imports: these modules were one file and share its names.
import os  # noqa: F401
import sys  # noqa: F401
import textwrap  # noqa: F401

from gen_assumptions import *  # noqa: F401,F403
from gen_hardware import *  # noqa: F401,F403
from gen_frameworks import *  # noqa: F401,F403
from gen_case_files import *  # noqa: F401,F403


# ---- MosaicML llm-foundry: MPT pretraining throughput with FSDP FULL_SHARD (issue 17)
# Compute of these LLM steps is roofline (the sources give no single-GPU rate: the models do not
# fit one GPU): the matmul efficiency is one number per GPU type, fitted on one calibration row
# of the same table so that ddpsim reproduces it; every other row is then predicted. The
# calibration rows are not cases.
LLM_MATMUL_EFFICIENCY = {
    # GPU type: (efficiency, the calibration row it was fitted on)
    "a100": (0.7432, "LLMF-A100-40-13b-16"),
    "h100": (0.5136, "LLMF-H100-80-7b-8"),
}


def llm_foundry():
    # (table, gpu preset, GPU type, model, gpus, micro-batch, accumulation, precision mode,
    #  activation checkpointing, tokens/s/GPU); sequence 2048 everywhere.
    rows = [
        ("A100-80", "a100-sxm-80gb", "a100", "70b", 64, 8, 4, "PURE", True, 410),
        ("A100-80", "a100-sxm-80gb", "a100", "70b", 32, 2, 16, "PURE", True, 373),
        ("A100-80", "a100-sxm-80gb", "a100", "30b", 8, 3, 21, "DEFAULT", True, 916),
        ("A100-80", "a100-sxm-80gb", "a100", "13b", 8, 2, 3, "DEFAULT", False, 2262),
        ("A100-80", "a100-sxm-80gb", "a100", "7b", 8, 6, 2, "DEFAULT", False, 4641),
        ("A100-80", "a100-sxm-80gb", "a100", "1b", 8, 14, 4, "DEFAULT", False, 20513),
        ("A100-40", "a100-sxm-40gb", "a100", "70b", 128, 4, 1, "PURE", True, 376),
        ("A100-40", "a100-sxm-40gb", "a100", "70b", 64, 2, 1, "PURE", True, 276),
        ("A100-40", "a100-sxm-40gb", "a100", "30b", 128, 6, 1, "PURE", True, 865),
        ("A100-40", "a100-sxm-40gb", "a100", "30b", 32, 4, 1, "PURE", True, 857),
        ("A100-40", "a100-sxm-40gb", "a100", "13b", 128, 16, 1, "PURE", True, 1972),
        ("A100-40", "a100-sxm-40gb", "a100", "13b", 64, 16, 1, "PURE", True, 1976),
        ("A100-40", "a100-sxm-40gb", "a100", "13b", 32, 14, 1, "PURE", True, 1998),
        ("A100-40", "a100-sxm-40gb", "a100", "13b", 16, 10, 1, "PURE", True, 1993),
        ("A100-40", "a100-sxm-40gb", "a100", "13b", 8, 4, 16, "PURE", True, 1668),
        ("A100-40", "a100-sxm-40gb", "a100", "7b", 128, 18, 1, "PURE", True, 3623),
        ("A100-40", "a100-sxm-40gb", "a100", "7b", 64, 18, 1, "PURE", True, 3665),
        ("H100-80", "h100-sxm-80gb", "h100", "30b", 8, 3, 21, "DEFAULT", True, 2002),
        ("H100-80", "h100-sxm-80gb", "h100", "13b", 8, 2, 1, "DEFAULT", False, 4792),
        ("H100-80", "h100-sxm-80gb", "h100", "7b", 8, 6, 1, "DEFAULT", False, 10643),
        ("H100-80", "h100-sxm-80gb", "h100", "1b", 8, 14, 1, "DEFAULT", False, 45455),
    ]
    seq = 2048
    for table, gpu, kind, size, gpus, micro, accum, mode, ckpt, measured in rows:
        case_id = f"LLMF-{table}-{size}-{gpus}"
        efficiency, calibration_row = LLM_MATMUL_EFFICIENCY[kind]
        if case_id == calibration_row and not os.environ.get("LLMF_CALIBRATE"):
            continue  # the calibration row itself is not a case
        hw = "hgx-h100" if kind == "h100" else "dgx-a100"
        nodes = max(1, gpus // 8)
        gpn = min(gpus, 8)
        grad = "bf16" if mode == "PURE" else "fp32"
        head = [f"# {case_id}: MPT-{size} pretraining, {gpus} GPUs, FSDP FULL_SHARD",
                f"# Source: {SOURCES['LLMF']}, table '{table}'.",
                f"# Measured: {measured:g} tokens/s per GPU (Throughput T/s/GPU); micro-batch "
                f"{micro} x {accum} accumulation, sequence {seq}, bf16, Composer mixed precision "
                f"{mode}, activation checkpointing {ckpt}.",
                f"# Calibration: roofline matmul efficiency {efficiency:g} for every {kind.upper()} "
                f"row, fitted on {calibration_row} (not a case)."]
        extra = dict(sharding="zero3")
        c_lines, c_body = cluster_section(hw, nodes, gpn, gpu, None)
        if kind == "a100" and nodes > 1:
            c_lines.append("# The source's A100 clusters have a 1600 Gb/s node-to-node "
                           "interconnect (RoCE): 8 x 200 Gb/s, as the NICs above.")
        s_lines, s_body = sync_section("pytorch-fsdp", grad, nodes, extra)
        lines = head + c_lines + s_lines + [
            "# Composer's PURE mode reduces gradients in bf16, DEFAULT in fp32 (its FSDP "
            "mixed-precision presets).",
            "# MPT = the GPT-2 architecture with these widths (scenarios/models/hf/mpt-*), flash "
            "attention, no dropout; decoupled AdamW (Adam's state)."]
        body = [f"name: {case_id.lower()}"] + c_body
        body += ["model:", f"  hf_config: ../../models/hf/mpt-{size}/config.json",
                 f"  sequence_length: {seq}"]
        body += ["training:", f"  batch_per_gpu: {micro}", "  precision: bf16",
                 "  optimizer: adam", f"  gradient_accumulation: {accum}",
                 f"  activation_checkpointing: {'true' if ckpt else 'false'}",
                 f"  iterations: {ITERATIONS}", "  warmup: 1"]
        body += s_body
        body += ["compute: {mode: roofline, efficiency: %s, overlap_slowdown: %s}"
                 % (fmt(efficiency), fmt(NCCL_OVERLAP_SLOWDOWN))]
        case = dict(id=case_id, group="sharding", metric="throughput", measured=measured,
                    unit="tokens/s", per_sample=seq / gpus,
                    note="tokens/s per GPU: per_sample = sequence / GPUs")
        body += validation_section(SOURCES["LLMF"], f"roofline efficiency {efficiency:g} "
                                   f"fitted on {calibration_row}", [case])
        write("llm-foundry-fsdp", case_id, lines, body)
