"""The NCCL all-reduce cases (bus bandwidth and latency of published nccl-tests and NCCL
reports). Part of generate.py."""

# Star imports: these modules were one file and share its names.
import os  # noqa: F401
import sys  # noqa: F401
import textwrap  # noqa: F401

from gen_assumptions import *  # noqa: F401,F403
from gen_hardware import *  # noqa: F401,F403
from gen_frameworks import *  # noqa: F401,F403
from gen_case_files import *  # noqa: F401,F403


# ---- NCCL all-reduce bus bandwidth
def nccl():
    # (case id, source, hw, nodes, nics, size, mlp widths, measured, note, pending)
    rows = [
        ("NCCL-A100-8-maint", "NCCL-149", "dgx-a100", 1, None, "8 GiB", [32768, 65536], 230,
         "maintainer's achievable figure for >= 8 GB messages", None),
        ("NCCL-A100-8-meas", "NCCL-175", "dgx-a100", 1, None, "4 GiB", [32768, 32768], 232.54,
         "peak of all_reduce_perf -b 8 -e 4G -g 8", None),
        ("NCCL-A100-16-meas", "NCCL-175", "dgx-a100", 2, 4, "4 GiB", [32768, 32768], 86,
         "2 nodes, 4x 200 Gb/s InfiniBand (dual-port cards) each; large messages", None),
        ("NCCL-A100-24-meas", "NCCL-119", "dgx-a100", 3, 4, "128 MiB", [4096, 8192], 96,
         "3 nodes, 4x HDR each; the published '84.8 / ~96' is the average over 8 B..128 MB and "
         "the peak; the peak (at 128 MB) is compared", None),
        ("NCCL-H100-32-meas", "VPB", "hgx-h100", 4, None, "8 GiB", [32768, 65536], 330.93,
         "4 nodes, 8x 400 Gb/s each; NCCL 2.24.3", None),
        ("NCCL-H100-8-maint", "NCCL-212", "hgx-h100", 1, None, "8 GiB", [32768, 65536], 480,
         "NVLink SHARP (NVLS): the NVSwitch reduces in the switch", None),
        ("NCCL-H100-8-meas", "VPB", "hgx-h100", 1, None, "8 GiB", [32768, 65536], 479.72,
         "8 GiB, NCCL 2.24.3 (NVLS by default on H100)", None),
        ("NCCL-H800-8-meas", "NCCL-1374", "hgx-h800", 1, None, "8 GiB", [32768, 65536], 215,
         "8x H800 (NVLink reduced to 8 links, 200 GB/s per direction)", None),
    ]
    # Transports (issue 11): consumer GPUs over PCIe with and without peer-to-peer, and the
    # latency of a small all-reduce across nodes (the smallest size of the published sweep).
    # (case id, source, hw, nodes, size, widths, measured, unit, metric, p2p, note)
    transports = [
        ("NCCL-4090-4-SHM", "NCCL-1603", "rtx4090-4", 1, "1 GiB", [16384, 16383], 18, "GB/s",
         "busbw", False, "NCCL's default: no P2P between GeForce cards, SHM through host memory"),
        ("NCCL-4090-4-P2P", "NCCL-1603", "rtx4090-4", 1, "1 GiB", [16384, 16383], 22, "GB/s",
         "busbw", True, "P2P-enabled driver with NCCL_P2P_LEVEL=SYS (P2P through the root "
         "complex)"),
        ("NCCL-A100PCIE-2-8B", "NCCL-293", "a100pcie-ib", 2, "8 B", [1, 1], 17.08, "us",
         "allreduce_time", None, "8 B across 2 nodes: pure latency"),
        # Many small all-reduces across nodes: the same p3dn.24xlarge cluster at 4 and 8 nodes
        # (the 2-node 8 B row calibrates EFA_LATENCY and is not a case).
        ("NCCL-P3DN-32-8B", "JK-4", "p3dn.24xlarge", 4, "8 B", [1, 1], 319.4, "us",
         "allreduce_time", None, "8 B across 4 nodes over EFA: pure latency; 8 ranks per node assumed (p3dn.24xlarge has 8 GPUs; the log shows no rank lines)"),
        ("NCCL-P3DN-64-8B", "JK-8", "p3dn.24xlarge", 8, "8 B", [1, 1], 631.3, "us",
         "allreduce_time", None, "8 B across 8 nodes over EFA: pure latency; 8 ranks per node assumed"),
        ("NCCL-P3DN-32-32K", "JK-4", "p3dn.24xlarge", 4, "32 KiB", [8191, 1], 343.3, "us",
         "allreduce_time", None, "32 KiB across 4 nodes over EFA; 8 ranks per node assumed"),
        ("NCCL-P3DN-64-32K", "JK-8", "p3dn.24xlarge", 8, "32 KiB", [8191, 1], 663.2, "us",
         "allreduce_time", None, "32 KiB across 8 nodes over EFA; 8 ranks per node assumed"),
    ]
    for case_id, source, hw, nodes, size, widths, measured, unit, metric, p2p, note in transports:
        rows.append((case_id, source, hw, nodes, None, size, widths, measured, note, None,
                     dict(unit=unit, metric=metric, p2p=p2p)))
    for row in rows:
        case_id, source, hw, nodes, nics, size, widths, measured, note, pending = row[:10]
        extra = row[10] if len(row) > 10 else dict(unit="GB/s", metric="busbw", p2p=None)
        gpn = HARDWARE[hw]["gpus"]
        gpu = HARDWARE[hw]["gpu"]
        c_lines, c_body = cluster_section(hw, nodes, gpn, gpu, nics, p2p=extra["p2p"])
        params = widths[0] * widths[1] + widths[1]
        what = ("bus bandwidth" if extra["metric"] == "busbw" else "time")
        lines = [f"# {case_id}: NCCL all_reduce_perf {what}, {note}.",
                 f"# Source: {SOURCES[source]}.",
                 f"# Measured: {measured:g} {extra['unit']} ({extra['metric']}) on "
                 f"{nodes * gpn} GPUs.",
                 f"# The all-reduce: one {size} fp32 tensor (an MLP layer of {widths[0]} x "
                 f"{widths[1]} weights with its bias, {params * 4:,} bytes); its bucket's "
                 f"all-reduce time gives busbw = 2(p-1)/p x bytes / time, as nccl-tests computes "
                 f"it. Compute is irrelevant (roofline)."] + c_lines
        # NVLink SHARP nodes run NCCL 2.17 or later, whose default choice includes NVLS: those
        # rows take NCCL's own choice (auto), every other row the ring (global assumption).
        algorithm = "auto" if hw in NVLS_HARDWARE else "ring"
        if algorithm == "auto":
            lines.append("# NCCL's default choice (auto: ring, tree or NVLS per size; global "
                         "assumption for NVLink SHARP nodes).")
        else:
            lines.append("# NCCL ring (global assumption: the rows are ring-bound).")
        body = [f"name: {case_id.lower()}"] + c_body
        body += ["model: {name: mlp, layers: [%d, %d]}" % tuple(widths),
                 "training: {batch_per_gpu: 1, precision: fp32, optimizer: sgd, iterations: 2, "
                 "warmup: 1}",
                 "sync: {strategy: allreduce, algorithm: %s, bucket_cap: 16GiB, "
                 "first_bucket: 1MiB, overlap: false}" % algorithm,
                 "compute: {mode: roofline, efficiency: 0.5}"]
        body += validation_section(
            SOURCES[source], "none needed: the metric is the all-reduce alone",
            [dict(id=case_id, group="collectives", metric=extra["metric"], measured=measured,
                  unit=extra["unit"])], pending)
        write("nccl-allreduce", case_id, lines, body)
