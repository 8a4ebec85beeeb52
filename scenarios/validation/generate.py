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
import textwrap

HERE = os.path.dirname(os.path.abspath(__file__))

# --------------------------------------------------------------------------- global assumptions
# Effective bandwidth = fraction x line rate, one fraction per link technology, taken from the
# NCCL all-reduce rows of measurements.csv (which are themselves cases, group collectives).
NVLINK_EFFICIENCY = 0.77  # NCCL-A100-8-maint 230 and -meas 232.5 GB/s busbw of 300 GB/s line
NIC_EFFICIENCY = 0.86     # NCCL-A100-16-meas 86 of 100, -24 96 of 100, H100-32 331 of 400 GB/s:
                          # median 0.86
PCIE_EFFICIENCY = 0.77    # no PCIe row; bandwidthTest gives 12-13 of 15.75 GB/s on gen3 x16,
                          # the NVLink fraction again
HOST_EFFICIENCY = 0.77    # host memory (DMA): no row either, the same fraction again
HOST_MEMORY_LINE = 204.8  # GB/s per socket where the source does not state the CPU: eight
                          # channels of DDR4-3200 (docs/transports.md)
# Link latency beyond NCCL's own per-hop latencies (tuning.cc hwLat, which hold NVLink, PCIe and
# InfiniBand hops): none. NCCL-backed collectives take NCCL's table (sync.latency_model: nccl).
NVLINK_LATENCY = "0us"    # extra latency per message inside a node (NVLink, NVSwitch, PCIe)
IB_LATENCY = "0us"        # extra latency per message between nodes, InfiniBand
TCP_LATENCY = "30us"      # latency per message between nodes, TCP over Ethernet (gRPC)
EFA_LATENCY = "30us"      # AWS EFA through the aws-ofi-nccl plugin (2019), per network hop beyond
                          # NCCL's table: the source's 2-node row (8 B in 163.4 us on 2x
                          # p3dn.24xlarge, gist jacobkahn/a92f4425...) less the 43.4 us ddpsim's
                          # NCCL ring charges with no extra, over its 2 x 2 network hops:
                          # (163.4 - 43.4) / 4 = 30.0 us. That row is a calibration, not a case.
ITERATIONS = 3            # simulated optimizer steps; the first is warmup
HOROVOD_FUSION = "64MiB"  # HOROVOD_FUSION_THRESHOLD default before Horovod 0.21 (the 2019-20 NGC
HOROVOD_CYCLE = "5ms"     # containers); HOROVOD_CYCLE_TIME default before 0.21 (operations.cc)
TF_WHOLE_VARIABLE = "2GiB"  # tf_cnn_benchmarks sets no partitioner: a variable moves whole
DDP_BUCKET = "25MiB"      # PyTorch DDP bucket_cap_mb default
# Compute slowdown while NCCL kernels run on the same GPU (compute.overlap_slowdown): NCCL's
# kernels hold SMs (one CTA per channel, never shared with compute kernels) and HBM bandwidth.
# Lee et al., "Characterizing Compute-Communication Overlap in GPU-Accelerated Distributed Deep
# Learning" (arXiv 2507.03114, 2025): "overlapping computation and communication can result in an
# average computational slowdown of 18.9%, with a maximum of 40.0%" (GPT and LLaMA on 4 A100,
# H100, MI250, MI210). Applies to frameworks whose gradients move through NCCL kernels; a
# parameter server's device-to-host copies use the copy engines, not SMs.
NCCL_OVERLAP_SLOWDOWN = 1.189


def gbs(value):
    """A bandwidth in GB/s, rounded to 0.01 GB/s, as scenario text."""
    return f"{value:.2f}GB/s"


# --------------------------------------------------------------------------- hardware
# Per-GPU NVLink count to the other GPUs of the job, by GPUs used in the node: NVSwitch systems
# reach every GPU with all links; hybrid cube-meshes (DGX-1) only with the links between the GPUs
# used (nvidia-smi topo of GPUs 0..k-1), and NCCL's rings use all of them.
HARDWARE = {
    "dgx1-p100": dict(
        desc="NVIDIA DGX-1 (P100): 8x P100-SXM2 16GB, NVLink 1 hybrid cube-mesh (4 links x "
             "20 GB/s per GPU), PCIe gen3 x16, 2x 20-core Xeon E5-2698 v4",
        gpu="p100-sxm2-16gb", gpus=8, kind="nvlink-mesh", link_rate=20.0,
        links={1: 0, 2: 1, 4: 3, 8: 4}, pcie_line=15.75, cores=40, nics=4, nic_gbps=100,
        nic_kind="EDR InfiniBand", nic_latency=IB_LATENCY),
    "dgx1-v100": dict(
        desc="NVIDIA DGX-1 (V100): 8x V100-SXM2 16GB, NVLink 2 hybrid cube-mesh (6 links x "
             "25 GB/s per GPU; GPU0-GPU1 1 link, GPUs 0-3 4 links each), PCIe gen3 x16, "
             "2x 20-core Xeon E5-2698 v4, 4x 100 Gb/s EDR InfiniBand",
        gpu="v100-sxm2-16gb", gpus=8, kind="nvlink-mesh", link_rate=25.0,
        links={1: 0, 2: 1, 4: 4, 8: 6}, pcie_line=15.75, cores=40, nics=4, nic_gbps=100,
        nic_kind="EDR InfiniBand", nic_latency=IB_LATENCY),
    "dgx2": dict(
        desc="NVIDIA DGX-2: 16x V100-SXM3 32GB on 12 NVSwitches (6 links x 25 GB/s per GPU), "
             "PCIe gen3 x16, 2x 24-core Xeon Platinum 8168, 8x 100 Gb/s EDR InfiniBand",
        gpu="v100-sxm2-32gb", gpus=16, kind="nvswitch", link_rate=25.0,
        links={k: 6 for k in (1, 2, 4, 8, 16)}, pcie_line=15.75, cores=48, nics=8, nic_gbps=100,
        nic_kind="EDR InfiniBand", nic_latency=IB_LATENCY),
    "dgx-a100": dict(
        desc="NVIDIA DGX A100: 8x A100-SXM4 on 6 NVSwitches (12 links x 25 GB/s per GPU), PCIe "
             "gen4 x16, 2x 64-core EPYC 7742, 8x 200 Gb/s HDR InfiniBand (compute rails)",
        gpu="a100-sxm-80gb", gpus=8, kind="nvswitch", link_rate=25.0,
        links={k: 12 for k in (1, 2, 4, 8)}, pcie_line=31.5, cores=128, nics=8, nic_gbps=200,
        nic_kind="HDR InfiniBand", nic_latency=IB_LATENCY),
    "hgx-h100": dict(
        desc="8x H100-SXM5 80GB on NVSwitch (18 links x 25 GB/s per GPU), PCIe gen5 x16, "
             "8x 400 Gb/s NDR InfiniBand",
        gpu="h100-sxm-80gb", gpus=8, kind="nvswitch", link_rate=25.0,
        links={k: 18 for k in (1, 2, 4, 8)}, pcie_line=63.0, cores=112, nics=8, nic_gbps=400,
        nic_kind="NDR InfiniBand", nic_latency=IB_LATENCY),
    "hgx-h800": dict(
        desc="8x H800-SXM5 80GB on NVSwitch (8 links x 25 GB/s per GPU, the export variant of "
             "the H100), 8x 400 Gb/s NDR InfiniBand",
        gpu="h100-sxm-80gb", gpus=8, kind="nvswitch", link_rate=25.0,
        links={k: 8 for k in (1, 2, 4, 8)}, pcie_line=63.0, cores=112, nics=8, nic_gbps=400,
        nic_kind="NDR InfiniBand", nic_latency=IB_LATENCY),
    "p3dn.24xlarge": dict(
        desc="AWS p3dn.24xlarge: 8x V100-SXM2 32GB, NVLink hybrid cube-mesh (as the DGX-1 V100: "
             "6 links x 25 GB/s per GPU), PCIe gen3 x16, 96 vCPUs (2x 24-core Xeon Platinum "
             "8175M), one 100 Gb/s Elastic Fabric Adapter",
        gpu="v100-sxm2-32gb", gpus=8, kind="nvlink-mesh", link_rate=25.0,
        links={1: 0, 2: 1, 4: 4, 8: 6}, pcie_line=15.75, cores=48, nics=1, nic_gbps=100,
        nic_kind="EFA (libfabric through the aws-ofi-nccl plugin)", nic_latency=EFA_LATENCY,
        nic_note="EFA through aws-ofi-nccl (2019) costs 30 us per network hop beyond NCCL's "
                 "latency table (EFA_LATENCY, calibrated on the source's 2-node 8 B row: "
                 "(163.4 - 43.4) / 4 us)"),
    "p2.8xlarge": dict(
        desc="AWS p2.8xlarge: 8 GK210 GPUs on 4 K80 boards (two GPUs share a board's PCIe "
             "gen3 x16 through its PLX switch; no NVLink), 32 vCPUs, 10 Gb/s Ethernet",
        gpu="k80", gpus=8, kind="pcie", link_rate=0.0, links={}, pcie_line=15.75,
        switch=(2, 15.75), cores=32, nics=1, nic_gbps=10, nic_kind="Ethernet (TCP)",
        nic_latency=TCP_LATENCY, transport="tcp"),
    "rtx4090-4": dict(
        desc="4x GeForce RTX 4090 on PCIe gen4 x16 root ports of one CPU (no PCIe switch); the "
             "source does not state the CPU or its memory",
        gpu="rtx-4090", gpus=4, kind="pcie", link_rate=0.0, links={}, pcie_line=31.5,
        cores=32, nics=1, nic_gbps=100, nic_kind="none used (one node)", nic_latency=IB_LATENCY),
    "a100pcie-ib": dict(
        desc="1x A100-PCIE-40GB per node (PCIe gen4 x16), one InfiniBand NIC; the source "
             "reaches 9 GB/s bus bandwidth, a 100 Gb/s link",
        gpu="a100-pcie-40gb", gpus=1, kind="pcie", link_rate=0.0, links={}, pcie_line=31.5,
        cores=32, nics=1, nic_gbps=100, nic_kind="InfiniBand (100 Gb/s assumed)",
        nic_latency=IB_LATENCY),
    "p2.xlarge": dict(
        desc="AWS p2.xlarge: one GK210 GPU (half a K80 board), 4 vCPUs, network 'High' (AWS "
             "states no number; 10 Gb/s written here is a placeholder)",
        gpu="k80", gpus=1, kind="pcie", link_rate=0.0, links={}, pcie_line=15.75,
        cores=4, nics=1, nic_gbps=10, nic_kind="Ethernet (TCP)", nic_latency=TCP_LATENCY,
        transport="tcp"),
}


def cluster_section(hw_key, nodes, gpus_per_node, gpu_override=None, nics=None, notes=(),
                    rings=None, p2p=None):
    """The cluster: section and the assumption comments it implies."""
    hw = HARDWARE[hw_key]
    gpu = gpu_override or hw["gpu"]
    pcie = PCIE_EFFICIENCY * hw["pcie_line"]
    lines = [f"# Hardware: {hw['desc']}."]
    lines += [f"# {n}" for n in notes]
    body = [
        "cluster:",
        f"  nodes: {nodes}",
        f"  gpus_per_node: {gpus_per_node}",
        f"  gpu: {gpu}",
    ]
    if gpus_per_node > 1:
        if hw["kind"] == "pcie":
            p2p_text = "" if p2p is None else ", p2p: %s" % ("true" if p2p else "false")
            body += ["  intra_node: {kind: pcie, latency: %s%s}" % (NVLINK_LATENCY, p2p_text)]
            lines.append("# GPU-to-GPU traffic crosses PCIe (no NVLink)" +
                         ("" if p2p is None else
                          "; peer-to-peer" if p2p else
                          "; no peer-to-peer: staged through host memory (NCCL SHM)") + ".")
        else:
            links = hw["links"][gpus_per_node]
            if rings is not None and rings < links:
                lines.append(f"# The library builds {rings} ring(s): {rings} of the "
                             f"{links} NVLinks of a GPU carry the all-reduce.")
                links = rings
            line = links * hw["link_rate"]
            eff = NVLINK_EFFICIENCY * line
            body += ["  intra_node: {kind: %s, bandwidth: %s, latency: %s}"
                     % (hw["kind"], gbs(eff), NVLINK_LATENCY)]
            lines.append(f"# NVLink: {links} links x {hw['link_rate']:g} GB/s = {line:g} GB/s per "
                         f"GPU and direction among the {gpus_per_node} GPUs used; x "
                         f"{NVLINK_EFFICIENCY} (global NVLink efficiency) = {gbs(eff)}.")
    body.append(f"  pcie: {gbs(pcie)}")
    lines.append(f"# PCIe: {hw['pcie_line']:g} GB/s line per GPU x {PCIE_EFFICIENCY} (global PCIe "
                 f"efficiency) = {gbs(pcie)}.")
    if "switch" in hw:
        per, line = hw["switch"]
        body.append("  pcie_switch: {gpus: %d, uplink: %s}" % (per, gbs(PCIE_EFFICIENCY * line)))
        lines.append(f"# PCIe switches: {per} GPUs share one switch whose uplink is {line:g} GB/s "
                     f"line x {PCIE_EFFICIENCY} = {gbs(PCIE_EFFICIENCY * line)}.")
    if True:  # every node has host memory; staged traffic and host-to-device copies cross it
        host = HOST_EFFICIENCY * HOST_MEMORY_LINE
        body.append("  host: {bandwidth: %s}" % gbs(host))
        lines.append(f"# Host memory: {HOST_MEMORY_LINE:g} GB/s per socket (the source does not "
                     f"state the CPU: 8 channels of DDR4-3200) x {HOST_EFFICIENCY} (global host "
                     f"efficiency) = {gbs(host)}.")
    body.append(f"  cpu_cores: {hw['cores']}")
    # NICs are written for single nodes too (they exist; nothing crosses them there).
    if True:
        count = min(nics or hw["nics"], gpus_per_node)  # ddpsim: at most one NIC per GPU
        nic = NIC_EFFICIENCY * hw["nic_gbps"] / 8
        transport = ", transport: tcp" if hw.get("transport") == "tcp" else ""
        body.append("  nic: {count: %d, bandwidth: %s, latency: %s%s}"
                    % (count, gbs(nic), hw["nic_latency"], transport))
        if transport:
            lines.append("# TCP: the transport's efficiency (header overhead, streams) is ddpsim's "
                         "TCP default (docs/transports.md); no GPUDirect RDMA.")
        if nodes > 1:
            body.append("  fabric: {kind: leaf-spine, nodes_per_leaf: 32, oversubscription: 1.0}")
        if "nic_note" in hw:
            lines.append(f"# {hw['nic_note']}.")
        lines.append(f"# Network: {count}x {hw['nic_gbps']} Gb/s {hw['nic_kind']} per node x "
                     f"{NIC_EFFICIENCY} (global NIC efficiency) = {gbs(nic)} per NIC; a "
                     f"non-blocking fabric (not stated by the source).")
    return lines, body


# --------------------------------------------------------------------------- frameworks
# How each framework synchronises gradients (applies to every case of that framework).
FRAMEWORKS = {
    "pytorch-fsdp": dict(
        desc="PyTorch FSDP FULL_SHARD (ZeRO-3) over NCCL: one unit per transformer block "
             "(Composer wraps each block), BACKWARD_PRE prefetch, limit_all_gathers; parameters "
             "gathered in bf16",
        sync=dict(strategy="allreduce", algorithm="ring", sharding="zero3", overlap="true"),
        nccl_kernels=True),
    "pytorch-ddp": dict(
        desc="PyTorch DDP over NCCL: 25 MiB buckets (first 1 MiB), overlapped with backward, "
             "ring all-reduce",
        sync=dict(strategy="allreduce", algorithm="ring", bucket_cap=DDP_BUCKET,
                  first_bucket="1MiB", overlap="true"), nccl_kernels=True),
    "horovod": dict(
        desc="Horovod over NCCL (0.16-0.19 in these containers): every 5 ms cycle fuses the "
             "tensors ready on every rank into buffers of up to 64 MiB, overlapped with "
             "backward, ring all-reduce",
        sync=dict(strategy="allreduce", algorithm="ring", overlap="true",
                  fusion=dict(threshold=HOROVOD_FUSION, cycle_time=HOROVOD_CYCLE)),
        nccl_kernels=True),
    "tf-replicated": dict(
        desc="TensorFlow tf_cnn_benchmarks (2017) through tf.contrib.nccl: one all-reduce per "
             "gradient tensor (no fusion); TF's NcclManager makes the NCCL stream wait for "
             "everything already queued on the compute stream (ThenWaitFor(tensor_stream)), and "
             "the executor queues backward kernels far ahead, so the all-reduces run after "
             "backward (overlap: false); TF 1.x of 2017 bundles NCCL 1.x, which builds a single "
             "ring (one NVLink per GPU, NVIDIA/nccl#666)",
        sync=dict(strategy="allreduce", algorithm="ring", bucket_cap="0", overlap="false"),
        rings=1, nccl_kernels=True),
    "tf-ps": dict(
        desc="TensorFlow tf_cnn_benchmarks (2017) with parameter servers (gRPC between "
             "machines): one transfer per gradient tensor; TF copies a tensor off the GPU on a "
             "device-to-host stream that first waits for everything queued on the compute stream "
             "(GPUUtil::CopyGPUTensorToCPU, ThenWaitFor), so pushes start after backward "
             "(overlap: false); variables are not partitioned (each moves whole) and are placed "
             "on the least-loaded server (ParamServerDeviceSetter); the servers apply the update",
        sync=dict(strategy="ps", algorithm="ring", bucket_cap="0", overlap="false",
                  partition=TF_WHOLE_VARIABLE)),
}
# NCCL ring everywhere: the multi-node NCCL rows are ring-bound (busbw ~ the NICs' bandwidth;
# a tree would exceed it at 2 nodes), see docs/model-assumptions.md.
MULTI_NODE_ALGORITHM = "ring"
# NVSwitch nodes of Hopper GPUs: NCCL (2.17 and later) may reduce in the switch (NVLS), so their
# nccl-tests rows take NCCL's default choice (sync.algorithm auto), docs/transports.md.
NVLS_HARDWARE = ("hgx-h100", "hgx-h800")


def sync_section(framework, grad_dtype, nodes, extra=None):
    fw = FRAMEWORKS[framework]
    s = dict(fw["sync"])
    if nodes > 1 and s["algorithm"] == "ring":
        s["algorithm"] = MULTI_NODE_ALGORITHM
    s["gradient_dtype"] = grad_dtype
    if extra:
        s.update(extra)
    body = ["sync:"]
    for k in ("strategy", "algorithm", "sharding", "bucket_cap", "first_bucket", "overlap",
              "gradient_dtype", "partition"):
        if k in s:
            body.append(f"  {k}: {s[k]}")
    for k in ("fusion", "ps"):
        if k in s:
            body.append(f"  {k}: {{%s}}" % ", ".join(f"{a}: {v}" for a, v in s[k].items()))
    lines = [f"# Synchronisation: {fw['desc']}; gradients {grad_dtype} on the wire."]
    changed = {k: v for k, v in (extra or {}).items()
               if k not in ("ps", "fusion") and fw["sync"].get(k) != v}
    if changed:
        lines.append("# This job departs from the framework's default (reason below): " +
                     ", ".join(f"{k} {v}" for k, v in changed.items()) + ".")
    return lines, body


# --------------------------------------------------------------------------- the cases
SOURCES = {
    "LLMF": "mosaicml/llm-foundry scripts/train/benchmarking/README.md (commit c90b9b3), MPT "
            "throughput tables (Composer + PyTorch FSDP, 12 steps per run)",
    "DLE-PT-RN50": "NVIDIA/DeepLearningExamples PyTorch/Classification/ConvNets/resnet50v1.5/"
                   "README.md 'Training performance results' (pytorch-21.03 NGC)",
    "DLE-TF-RN50": "NVIDIA/DeepLearningExamples TensorFlow/Classification/ConvNets/resnet50v1.5/"
                   "README.md 'Training performance results' (TF 20.06-tf1, XLA)",
    "DLE-MX-RN50": "NVIDIA/DeepLearningExamples MxNet/Classification/RN50v1.5/README.md "
                   "'Training performance results'",
    "DLE-PT-BERT": "NVIDIA/DeepLearningExamples PyTorch/LanguageModeling/BERT/README.md "
                   "(pytorch:21.11)",
    "DLE-TF-BERT": "NVIDIA/DeepLearningExamples TensorFlow/LanguageModeling/BERT/README.md "
                   "(TF 20.06 / 19.08 NGC, Horovod)",
    "DLE-PT-XFMR": "NVIDIA/DeepLearningExamples PyTorch/Translation/Transformer/README.md "
                   "(pytorch-22.06)",
    "PTDDPB": "pytorch/pytorch benchmarks/distributed/ddp/README.md (example output; PyTorch "
              "1.4.0a0, CUDA 10.0, NCCL)",
    "TFB": "tensorflow/tensorflow tensorflow/docs_src/performance/benchmarks.md (May 2017, "
           "tf_cnn_benchmarks)",
    "WGP": "willgpaik pytorch-ddp-bench (willgpaik-github-io.pages.dev/portfolio/"
           "pytorch-ddp-bench/)",
    "NCCL-149": "NVIDIA/nccl-tests issue #149 (sjeaugey, NCCL maintainer)",
    "NCCL-175": "NVIDIA/nccl-tests issue #175",
    "NCCL-119": "NVIDIA/nccl-tests issue #119",
    "NCCL-212": "NVIDIA/nccl-tests issue #212 (sjeaugey)",
    "VPB": "aigatech/vpbenchmarking README (Voltage Park)",
    "NCCL-1374": "NVIDIA/nccl issue #1374",
    "NCCL-1603": "NVIDIA/nccl issue #1603 (artetaout: 4x RTX 4090, no PCIe switch, one NUMA node)",
    "NCCL-293": "NVIDIA/nccl-tests issue #293 (gim4moon: 2 nodes x 1 A100-PCIE-40GB, InfiniBand, "
                "NCCL 2.21.5)",
    "JK-2": "gist.github.com/jacobkahn/a92f4425abf831ac0799fabe9079263d ('NCCL Tests on 2 node "
            "p3dn.24xlarge + EFA - all_reduce_perf -b 8 -e 1G -f 2 -g 1 -c 1 -n 100', 2019-07-23)",
    "JK-4": "gist.github.com/jacobkahn/1fb3977e99056b7935a6c63dda1e145f ('NCCL Tests on 4 node "
            "p3dn.24xlarge + EFA - all_reduce_perf -b 8 -e 1G -f 2 -g 1 -c 1 -n 100', 2019-07-23)",
    "JK-8": "gist.github.com/jacobkahn/3150a1a38abba40f58d8263d9c55969f ('NCCL Tests on 8 node "
            "p3dn.24xlarge + EFA - all_reduce_perf -b 8 -e 1G -f 2 -g 1 -c 1 -n 100', 2019-07-23)",
    "TPK": "tensorpack/benchmarks ResNet-MultiGPU/README.md 'Performance @ Sep 2017' "
           "(tensorflow/benchmarks column; TF v1.3.0-rc1-1302-g593dc8e, 8 P100s; "
           "github.com/tensorpack/benchmarks/blob/master/ResNet-MultiGPU/README.md)",
    "BUG": "e-bug/distributed-tensorflow-benchmarks report/source/benchmarks.tex (Bugliarello, "
           "'Distributed TensorFlow: a performance evaluation', ETH Zurich / CSCS report, "
           "September 2017; TF 1.1, tf_cnn_benchmarks)",
}


def training_case(folder, case_id, group, metric, measured, unit, *, source, hw, nodes, gpn,
                  model, batch, precision, optimizer, framework, grad_dtype, calibration,
                  rate=None, step_time=None, accumulation=1, sequence=None, per_sample=None,
                  gpu=None, notes=(), sync_extra=None, pending=None, nics=None, title=None,
                  compare=None):
    """One training configuration: measured-mode compute from the source's single-GPU figure."""
    head = [f"# {title or case_id}", f"# Source: {SOURCES[source]}."]
    head.append(f"# Measured: {measured:g} {unit} ({metric}) on {nodes * gpn} GPU(s).")
    head.append(f"# Calibration: {calibration}")
    c_lines, c_body = cluster_section(hw, nodes, gpn, gpu, nics,
                                      rings=FRAMEWORKS[framework].get("rings"))
    s_lines, s_body = sync_section(framework, grad_dtype, nodes, sync_extra)
    lines = head + c_lines + s_lines + [f"# {n}" for n in notes]
    body = [f"name: {case_id.lower()}"] + c_body
    body += ["model:", f"  name: {model}"]
    if sequence:
        body.append(f"  sequence_length: {sequence}")
    body += ["training:", f"  batch_per_gpu: {batch}", f"  precision: {precision}",
             f"  optimizer: {optimizer}", f"  gradient_accumulation: {accumulation}",
             f"  iterations: {ITERATIONS}", "  warmup: 1"]
    body += s_body
    slow = ""
    if FRAMEWORKS[framework].get("nccl_kernels") and NCCL_OVERLAP_SLOWDOWN != 1:
        slow = ", overlap_slowdown: %s" % fmt(NCCL_OVERLAP_SLOWDOWN)
        lines.append(f"# Compute runs {NCCL_OVERLAP_SLOWDOWN:g}x slower while NCCL kernels run on "
                     f"its GPU (global assumption: the mean slowdown measured by Lee et al. 2025, "
                     f"arXiv 2507.03114).")
    if rate is not None:
        body += ["compute: {mode: measured, samples_per_second: %s%s}" % (fmt(rate), slow)]
    else:
        body += ["compute: {mode: measured, step_time: %s%s}" % (step_time, slow)]
    case = dict(id=case_id, group=group, metric=metric, measured=measured, unit=unit)
    if per_sample:
        case["per_sample"] = per_sample
    if compare:
        case["compare"] = compare
    body += validation_section(SOURCES[source], calibration, [case], pending)
    write(folder, case_id, lines, body)


def fmt(x):
    return repr(x) if isinstance(x, float) and x != int(x) else f"{x:g}"


def validation_section(source, calibration, cases, pending=None):
    body = ["validation:", f"  source: {quote(source)}", f"  calibration: {quote(calibration)}"]
    if pending:
        body.append(f"  pending: {quote(pending)}")
    body.append("  cases:")
    for c in cases:
        fields = ", ".join(f"{k}: {quote(v) if isinstance(v, str) else fmt(v)}"
                           for k, v in c.items())
        body.append(f"    - {{{fields}}}")
    return body


def quote(text):
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"') + '"'


WRITTEN = []


def wrap_comment(line):
    """A '# ...' comment line wrapped at 100 columns (continuations indented)."""
    if len(line) <= 100:
        return [line]
    return textwrap.wrap(line[2:], width=98, initial_indent="# ", subsequent_indent="#   ",
                         break_on_hyphens=False)


def assumed_keys(body):
    """The keys this generator filled from its global assumptions (fractions of line rate, the
    NCCL overlap slowdown), not from the source: the assumption ledger treats them as defaults
    with their documented ranges (docs/assumptions.md)."""
    keys = []
    for line in body:
        if line.startswith("  intra_node:") and "bandwidth:" in line:
            keys.append("cluster.intra_node.bandwidth")
        elif line.startswith("  pcie:"):
            keys.append("cluster.pcie")
        elif line.startswith("  host:") and "bandwidth:" in line:
            keys.append("cluster.host.bandwidth")
        elif line.startswith("  nic:"):
            keys.append("cluster.nic.bandwidth")
        elif line.startswith("compute:") and "overlap_slowdown:" in line:
            keys.append("compute.overlap_slowdown")
    return keys


def write(folder, case_id, comment_lines, body):
    keys = assumed_keys(body)
    if keys:
        listed = textwrap.wrap("assumed: [%s]" % ", ".join(keys), width=100,
                               subsequent_indent="  ", break_on_hyphens=False)
        body = body[:1] + ["# Filled from the global assumptions, not the source: defaults "
                           "(docs/assumptions.md)."] + listed + body[1:]
    path = os.path.join(HERE, folder, case_id.lower() + ".yaml")
    os.makedirs(os.path.dirname(path), exist_ok=True)
    comments = comment_lines + ["# Generated by scenarios/validation/generate.py; global "
                                "assumptions: docs/model-assumptions.md."]
    wrapped = [w for line in comments for w in wrap_comment(line)]
    text = "\n".join(wrapped) + "\n\n" + "\n".join(body) + "\n"
    with open(path, "w") as f:
        f.write(text)
    WRITTEN.append(path)


# ---- ResNet-50 v1.5 on one node, three frameworks (DeepLearningExamples)
def resnet50_dle():
    # (framework key, hw, gpu preset, precision, batch, 1-GPU rate, [(gpus, measured)])
    rows = [
        ("DLE-PT-RN50-A100", "TF32", "dgx-a100", "a100-sxm-80gb", "tf32", 256, 938,
         [(8, 7248)]),
        ("DLE-PT-RN50-A100", "AMP", "dgx-a100", "a100-sxm-80gb", "fp16", 256, 2470,
         [(8, 16621)]),
        ("DLE-PT-RN50-DGX1", "FP32", "dgx1-v100", None, "fp32", 112, 367, [(8, 2855)]),
        ("DLE-PT-RN50-DGX1", "AMP", "dgx1-v100", None, "fp16", 256, 1200, [(8, 8322)]),
    ]
    for prefix, tag, hw, gpu, prec, batch, rate, points in rows:
        for gpus, measured in points:
            training_case(
                "dle-resnet50", f"{prefix}-{tag}-{gpus}", "scaling", "throughput", measured,
                "img/s", source="DLE-PT-RN50", hw=hw, nodes=1, gpn=gpus, gpu=gpu,
                model="resnet50", batch=batch, precision=prec, optimizer="momentum",
                framework="pytorch-ddp", grad_dtype="fp32",
                calibration=f"{prefix}-{tag}-1, {rate} img/s on one GPU "
                            f"(compute.samples_per_second).",
                rate=rate,
                notes=["AMP (torch.cuda.amp/apex) keeps fp32 gradients, so DDP reduces 4 "
                       "bytes per parameter." if prec == "fp16" else
                       "Gradients are fp32.",
                       "Real ImageNet through DALI in the source; the loader is not simulated "
                       "(its cost is inside the single-GPU rate, see docs/accuracy.md)."])
    tf_rows = [
        ("DLE-TF-RN50-DGXA100", "TF32", "dgx-a100", "a100-sxm-40gb", "tf32", 256, 909,
         [(8, 7000)]),
        ("DLE-TF-RN50-DGXA100", "AMP", "dgx-a100", "a100-sxm-40gb", "fp16", 256, 2375,
         [(8, 17400)]),
        ("DLE-TF-RN50-DGX-1", "FP32", "dgx1-v100", None, "fp32", 128, 412, [(8, 3170)]),
        ("DLE-TF-RN50-DGX-1", "AMP", "dgx1-v100", None, "fp16", 256, 1270, [(8, 9510)]),
        ("DLE-TF-RN50-DGX-2", "FP32", "dgx2", None, "fp32", 128, 432, [(16, 6500)]),
        ("DLE-TF-RN50-DGX-2", "AMP", "dgx2", None, "fp16", 256, 1300, [(16, 17250)]),
    ]
    for prefix, tag, hw, gpu, prec, batch, rate, points in tf_rows:
        for gpus, measured in points:
            training_case(
                "dle-resnet50", f"{prefix}-{tag}-{gpus}", "scaling", "throughput", measured,
                "img/s", source="DLE-TF-RN50", hw=hw, nodes=1, gpn=gpus, gpu=gpu,
                model="resnet50", batch=batch, precision=prec, optimizer="momentum",
                framework="horovod", grad_dtype="fp32",
                calibration=f"{prefix}-{tag}-1, {rate} img/s on one GPU "
                            f"(compute.samples_per_second).",
                rate=rate,
                notes=["TF automatic mixed precision keeps fp32 variables and gradients; "
                       "Horovod without compression reduces 4 bytes per parameter.",
                       "XLA and the input pipeline are inside the single-GPU rate."])
    mx_rows = [
        ("DLE-MX-RN50-DGXA100", "AMP", "dgx-a100", "a100-sxm-80gb", "fp16", 512, 3410.52,
         [(4, 13442.66), (8, 26673.72)]),
        ("DLE-MX-RN50-DGXA100", "TF32", "dgx-a100", "a100-sxm-80gb", "tf32", 512, 1055.78,
         [(8, 8247.44)]),
        ("DLE-MX-RN50-DGX-1", "AMP", "dgx1-v100", None, "fp16", 192, 1376,
         [(2, 2768), (4, 5357), (8, 10723)]),
        ("DLE-MX-RN50-DGX-1", "FP32", "dgx1-v100", None, "fp32", 96, 384, [(8, 3005)]),
        ("DLE-MX-RN50-DGX-2", "AMP", "dgx2", None, "fp16", 256, 1492, [(8, 11368), (16, 21484)]),
        ("DLE-MX-RN50-DGX-2", "FP32", "dgx2", None, "fp32", 128, 417, [(16, 6338)]),
    ]
    for prefix, tag, hw, gpu, prec, batch, rate, points in mx_rows:
        for gpus, measured in points:
            training_case(
                "dle-resnet50", f"{prefix}-{tag}-{gpus}", "scaling", "throughput", measured,
                "img/s", source="DLE-MX-RN50", hw=hw, nodes=1, gpn=gpus, gpu=gpu,
                model="resnet50", batch=batch, precision=prec, optimizer="momentum",
                framework="horovod", grad_dtype="fp16" if prec == "fp16" else "fp32",
                calibration=f"{prefix}-{tag}-1, {rate} img/s on one GPU "
                            f"(compute.samples_per_second).",
                rate=rate,
                notes=["The README does not say whether kvstore 'device' or 'horovod' ran; "
                       "both reduce on the GPUs with NCCL; modelled as Horovod.",
                       "MXNet --dtype float16 keeps fp16 weights and gradients (fp32 master "
                       "copy in the optimizer): 2 bytes per parameter on the wire."
                       if prec == "fp16" else "Gradients are fp32.",
                       "Total IPS includes the DALI input pipeline, inside the single-GPU rate."])


# NVIDIA's BERT pretraining (PyTorch) skips DDP: one flat all-reduce after the last micro-batch.
POST_ACCUMULATION_FLAT = {"bucket_cap": "16GiB", "first_bucket": "16GiB", "overlap": "false"}


# ---- BERT-large (DeepLearningExamples)
def bert_dle():
    # PyTorch pretraining phase 1, seq 128, AMP: micro-batch 256, global 65536.
    for gpus, measured in [(8, 4553), (16, 9191), (32, 18119), (64, 35774), (128, 70555),
                           (256, 138294)]:
        accum = 65536 // (256 * gpus)
        notes = [f"Gradient accumulation {accum} = 65536 / (256 x {gpus}) (global batch 65536, "
                 f"micro-batch 256); one all-reduce per optimizer step."]
        if gpus == 32:
            notes.append("The README's row says 18 steps, which does not divide 65536; 8 is "
                         "the value that keeps the global batch.")
        notes += ["NVIDIA's run_pretraining does not use DDP: after the last micro-batch it "
                  "flattens all fp16 gradients into one buffer and all-reduces it "
                  "(allreduce_post_accumulation_fp16): one bucket, no overlap.",
                  "LAMB keeps two fp32 states per parameter, as Adam (optimizer: adam).",
                  "The single-GPU rate is taken as independent of the accumulation count (the "
                  "optimizer update is < 2 % of a micro-batch at this size)."]
        training_case(
            "dle-bert", f"DLE-PT-BERTL-A100-AMP-s128-{gpus}", "scaling", "throughput", measured,
            "seq/s", source="DLE-PT-BERT", hw="dgx-a100", nodes=max(1, gpus // 8),
            gpn=min(gpus, 8), model="bert-large", sequence=128, batch=256, precision="fp16",
            optimizer="adam", framework="pytorch-ddp", grad_dtype="fp16",
            accumulation=accum, rate=580, sync_extra=POST_ACCUMULATION_FLAT,
            calibration="DLE-PT-BERTL-A100-AMP-s128-1gpu, 580 seq/s on one A100 80GB "
                        "(compute.samples_per_second).",
            notes=notes)
    # Phase 2 (seq 512): no single-GPU row; calibrated from the one-node row.
    for prec, tag, micro, base_accum, one_node, points in [
            ("tf32", "TF32", 16, 256, 854, [(64, 6515), (128, 12131), (256, 21298)]),
            ("fp16", "AMP", 32, 128, 1648, [(256, 49663)])]:
        for gpus, measured in points:
            nodes = gpus // 8
            accum = base_accum // nodes
            training_case(
                "dle-bert", f"DLE-PT-BERTL-A100-{tag}-s512-{gpus}", "scaling", "throughput",
                measured, "seq/s", source="DLE-PT-BERT", hw="dgx-a100", nodes=nodes, gpn=8,
                model="bert-large", sequence=512, batch=micro, precision=prec, optimizer="adam",
                framework="pytorch-ddp", grad_dtype="fp16" if prec == "fp16" else "fp32",
                accumulation=accum, rate=one_node / 8, sync_extra=POST_ACCUMULATION_FLAT,
                calibration=f"DLE-PT-BERTL-A100-{tag}-s512-8, {one_node} seq/s on one DGX A100 "
                            f"(8 GPUs, accumulation {base_accum}) divided by 8: the source has "
                            f"no single-GPU row for this phase; at accumulation {base_accum} "
                            f"the node's all-reduce is < 1 % of a step, so the per-GPU rate is "
                            f"the single-GPU rate. That row is not a case.",
                notes=[f"Gradient accumulation {accum} = {base_accum} / {nodes} nodes "
                       f"(global batch 32768, micro-batch {micro}).",
                       "run_pretraining all-reduces one flat buffer of all gradients after the "
                       "last micro-batch (allreduce_post_accumulation): one bucket, no overlap.",
                       "LAMB ~ adam (two fp32 states per parameter)."])
    # PyTorch SQuAD fine-tuning, seq 384, no accumulation, DDP every step.
    for prec, tag, rate, calib, measured in [
            ("fp16", "AMP", 110.5, "DLE-PT-BERTL-A100-SQuAD-AMP-1, 110.5 seq/s", 846.7),
            ("tf32", "TF32", 61.5, "the 1-GPU TF32 figure 61.5 seq/s printed next to "
                                   "DLE-PT-BERTL-A100-SQuAD-TF32-8 in the same table", 469.8)]:
        training_case(
            "dle-bert", f"DLE-PT-BERTL-A100-SQuAD-{tag}-8", "scaling", "throughput", measured,
            "seq/s", source="DLE-PT-BERT", hw="dgx-a100", nodes=1, gpn=8,
            model="bert-large-squad", sequence=384, batch=32, precision=prec, optimizer="adam",
            framework="pytorch-ddp", grad_dtype="fp32", rate=rate,
            calibration=f"{calib} on one A100 80GB (compute.samples_per_second).",
            notes=["SQuAD v1.1 with max_seq_length 384 (run_squad.sh default).",
                   "AMP keeps fp32 gradients under DDP." if prec == "fp16" else
                   "Gradients are fp32."])
    # TensorFlow SQuAD fine-tuning (Horovod), seq 384.
    for hw, tag, prec, batch, rate, points in [
            ("dgx2", "DGX2-SQuAD-AMP", "fp16", 24, 55.28, [(4, 199.53), (8, 341.55),
                                                          (16, 683.37)]),
            ("dgx2", "DGX2-SQuAD-FP32", "fp32", 10, 11.15, [(16, 156.29)]),
            ("dgx1-v100", "DGX1-SQuAD-AMP", "fp16", 4, 29.74, [(4, 97.28), (8, 189.77)])]:
        for gpus, measured in points:
            training_case(
                "dle-bert", f"DLE-TF-BERTL-{tag}-{gpus}", "scaling", "throughput", measured,
                "seq/s", source="DLE-TF-BERT", hw=hw, nodes=1, gpn=gpus,
                model="bert-large-squad", sequence=384, batch=batch, precision=prec,
                optimizer="adam", framework="horovod",
                grad_dtype="fp16" if prec == "fp16" else "fp32", rate=rate,
                calibration=f"DLE-TF-BERTL-{tag}-1, {rate} seq/s on one GPU "
                            f"(compute.samples_per_second).",
                notes=["SQuAD v1.1 with max_seq_length 384.",
                       "NVIDIA's TF BERT wraps the optimizer in hvd.DistributedOptimizer with "
                       "Compression.fp16 under AMP: 2 bytes per gradient on the wire."
                       if prec == "fp16" else "Gradients are fp32."])
    # TensorFlow pretraining multi-node: no single-GPU row; calibrated from one node.
    for hw, tag, gpn, micro, seq, base_accum, one_node, gpu, points in [
            ("dgx2", "DGX2H-AMP-s128", 16, 64, 128, 64, 3081.69, "v100-sxm2-32gb",
             [(64, 13192.0), (256, 48223.0), (512, 86673.64)]),
            ("dgx-a100", "A100-AMP-s128", 8, 64, 128, 128, 2871.89, "a100-sxm-40gb",
             [(32, 11159), (128, 41144), (256, 77479.87)]),
            ("dgx-a100", "A100-AMP-s512", 8, 16, 512, 256, 572.112, "a100-sxm-40gb",
             [(256, 16705)])]:
        for gpus, measured in points:
            nodes = gpus // gpn
            accum = base_accum // nodes
            notes = [f"Gradient accumulation {accum} = {base_accum} / {nodes} nodes (fixed global "
                     f"batch, micro-batch {micro}).",
                     "Compression.fp16 under AMP: 2 bytes per gradient on the wire.",
                     "With accumulation, NVIDIA's TF BERT adds gradients into local "
                     "accumulators and all-reduces them in the apply step after the last "
                     "micro-batch: Horovod fusion, no overlap with backward.",
                     "LAMB ~ adam (two fp32 states per parameter)."]
            if hw == "dgx2":
                notes.insert(0, "DGX-2H: the 450 W V100 variant of the DGX-2; its speed is in "
                                "the calibration. The source does not state the network; "
                                "assumed the DGX-2's 8x 100 Gb/s EDR InfiniBand.")
            else:
                notes.insert(0, "The source does not state the network; assumed the DGX A100 "
                                "reference of 8x 200 Gb/s HDR InfiniBand (Selene-class).")
            if seq == 512:
                notes.insert(1, "The CSV note 'accum 256->16' is read as 256 at one node and 16 "
                                "at 16 nodes; 32 nodes keep the global batch 32768 with 8.")
            training_case(
                "dle-bert", f"DLE-TF-BERTL-{tag}-{gpus}", "scaling", "throughput", measured,
                "seq/s", source="DLE-TF-BERT", hw=hw, nodes=nodes, gpn=gpn, gpu=gpu,
                model="bert-large", sequence=seq, batch=micro, precision="fp16",
                optimizer="adam", framework="horovod", grad_dtype="fp16",
                accumulation=accum, rate=one_node / gpn, sync_extra={"overlap": "false"},
                calibration=f"DLE-TF-BERTL-{tag}-{gpn}, {one_node} seq/s on one node ({gpn} "
                            f"GPUs, accumulation {base_accum}) divided by {gpn}: no single-GPU "
                            f"row; at that accumulation the node's all-reduce is < 1 % of a "
                            f"step. That row is not a case.",
                notes=notes)


# ---- Transformer-big (DeepLearningExamples PyTorch)
def transformer_dle():
    for hw, tag, gpu, tokens, rate, points in [
            ("dgx-a100", "A100-AMP", "a100-sxm-40gb", 10240, 82059, [(4, 286081), (8, 551599)]),
            ("dgx2", "DGX2-AMP", None, 5120, 39911, [(8, 267815), (16, 517227)])]:
        sentences = tokens // 32
        for gpus, measured in points:
            training_case(
                "dle-transformer", f"DLE-PT-XFMR-{tag}-{gpus}", "scaling", "throughput",
                measured, "tokens/s", source="DLE-PT-XFMR", hw=hw, nodes=1, gpn=gpus, gpu=gpu,
                model="transformer-big", sequence=32, batch=sentences, precision="fp16",
                optimizer="adam", framework="pytorch-ddp", grad_dtype="fp32",
                rate=rate / 32, per_sample=32,
                calibration=f"DLE-PT-XFMR-{tag}-1, {rate} tokens/s on one GPU = "
                            f"{rate / 32:.6g} sentence pairs/s of 32 tokens "
                            f"(compute.samples_per_second).",
                notes=[f"Batch {tokens} tokens per GPU = {sentences} sentence pairs of 32 "
                       f"tokens (WMT14 en-de averages ~30 subword tokens a sentence); only the "
                       f"step time (tokens / rate) and the layer proportions depend on it.",
                       "The DGX-2 table lists batches '10240/5120' for FP32/AMP; AMP is read as "
                       "5120 tokens." if hw == "dgx2" else "Batch 10240 tokens as listed.",
                       "AMP keeps fp32 gradients under DDP."])


# ---- PyTorch DDP benchmark (pytorch/benchmarks/distributed/ddp)
def ptddpb():
    for model, key, base, points, bucket1, pending in [
            ("resnet50", "ResNet50", 0.097, [(1, 0.100), (2, 0.103), (8, 0.104), (16, 0.104)],
             [(8, 0.107), (16, 0.108)], None),
            ("resnet101", "ResNet101", 0.162, [(8, 0.179), (16, 0.179)], [(16, 0.187)], None),
            ("resnext50-32x4d", "ResNeXt5032x4d", 0.145, [(16, 0.157)], [], None),
            ("resnext101-32x8d", "ResNeXt10132x8d", 0.415, [(8, 0.447), (16, 0.45)],
             [(16, 0.455)], None)]:
        for gpus, measured in points + [(g, m) for g, m in bucket1]:
            is_bucket = (gpus, measured) in bucket1
            case_id = (f"PTDDPB-bucket1MB-{key}-{gpus}" if is_bucket else
                       f"PTDDPB-{key}-{gpus}")
            nodes = 2 if gpus == 16 else 1
            extra = {"bucket_cap": "1MiB"} if is_bucket else None
            training_case(
                "pytorch-ddp-benchmark", case_id, "bucket-size" if is_bucket else "scaling",
                "iteration_time", measured, "s", source="PTDDPB", hw="dgx1-v100", nodes=nodes,
                gpn=min(gpus, 8), model=model, batch=32, precision="fp32", optimizer="momentum",
                framework="pytorch-ddp", grad_dtype="fp32", step_time=f"{base * 1000:g}ms",
                sync_extra=extra, pending=pending,
                compare=(f"{key}, {gpus} V100: DDP bucket 25 vs 1 MB"
                         if gpus in [g for g, _ in bucket1] else None),
                calibration=f"PTDDPB-{key}-1-noddp, {base} s per iteration (p50) on one V100 "
                            f"without DDP (compute.step_time).",
                notes=(["bucket_cap_mb=1; the source reports p75 latency for these runs, "
                        "compared with the predicted (noise-free) iteration time."]
                       if is_bucket else ["Synthetic data; p50 iteration latency."]) +
                      (["Two DGX-1 machines, 4x 100 Gb/s InfiniBand each (mlx5_0..3)."]
                       if nodes == 2 else []))


# ---- willgpaik pytorch-ddp-bench (weak-scaling efficiency at 8 GPUs)
def wgp():
    for hw, tag, gpu, model, key, batch, rate, eff in [
            ("dgx1-v100", "V100", None, "resnet152", "ResNet152", 128, 503, 95.4),
            ("dgx1-v100", "V100", None, "vit-b16", "ViTB16", 128, 381, 95.9),
            ("dgx-a100", "A100", "a100-sxm-80gb", "resnet152", "ResNet152", 512, 1190, 97.4),
            ("dgx-a100", "A100", "a100-sxm-80gb", "vit-b16", "ViTB16", 1024, 1030, 98.0)]:
        training_case(
            "pytorch-ddp-bench-wgp", f"WGP-{tag}-{key}-8", "scaling", "scaling_efficiency", eff,
            "%", source="WGP", hw=hw, nodes=1, gpn=8, gpu=gpu, model=model, batch=batch,
            precision="fp16", optimizer="momentum", framework="pytorch-ddp", grad_dtype="fp32",
            rate=rate,
            calibration=f"WGP-{tag}-{key}-1, {rate} img/s on one GPU "
                        f"(compute.samples_per_second).",
            notes=["'8x V100 SXM2 16GB' is read as the DGX-1 hybrid cube-mesh (SXM2 boards "
                   "are NVLink meshes)." if tag == "V100" else
                   "'8x A100 SXM4 80GB' is read as an HGX A100 (NVSwitch).",
                   "FP16 read as torch.cuda.amp (fp32 gradients); synthetic on-device data.",
                   "The optimizer is not stated; SGD with momentum assumed (its cost is in the "
                   "calibration either way)."])


# ---- TensorFlow benchmarks 2017: DGX-1 P100 synthetic, EC2 K80 distributed
def tf_benchmarks():
    # DGX-1 P100, synthetic data; PS on CPU for ResNet-50 / Inception-v3, replicated NCCL else.
    for model, key, batch, mode, rate, points in [
            ("resnet50", "ResNet50", 64, "ps", 219, [(8, 1734)]),
            ("inception-v3", "Inceptionv3", 64, "ps", 142, [(8, 1131)]),
            ("vgg16", "VGG16", 64, "nccl", 154, [(8, 1081)]),
            ("alexnet", "AlexNet", 512, "nccl", 2987, [(2, 5658), (4, 10509), (8, 17822)])]:
        for gpus, measured in points:
            if mode == "ps":
                framework, extra = "tf-ps", {"ps": {"servers": 1, "placement": "colocated",
                                                    "pull": "forward"}}
                notes = ["variable_update=parameter_server with the variables on the CPU: "
                         "modelled as one parameter server colocated on the node (the host "
                         "CPU); ddpsim first reduce-scatters inside the node over NVLink, TF "
                         "sends each GPU's gradients over PCIe (see docs/accuracy.md).",
                         "The forward pass reads each variable from the CPU as it needs it "
                         "(sync.ps.pull: forward)."]
            else:
                framework, extra = "tf-replicated", None
                notes = []
            training_case(
                "tf-benchmarks-2017", f"TFB-P100-{key}-synth-{gpus}", "scaling", "throughput",
                measured, "img/s", source="TFB", hw="dgx1-p100", nodes=1, gpn=gpus,
                model=model, batch=batch, precision="fp32", optimizer="sgd",
                framework=framework, grad_dtype="fp32", rate=rate, sync_extra=extra,
                calibration=f"TFB-P100-{key}-synth-1, {rate} img/s on one P100, synthetic "
                            f"data (compute.samples_per_second).",
                notes=notes + ["Synthetic data, as the measurement.",
                               "tf_cnn_benchmarks' default optimizer is plain SGD."])
    # EC2 p2.8xlarge, 10 Gb/s, distributed_replicated with colocated parameter servers.
    for model, key, batch, rate, points, ps_at_64 in [
            ("resnet50", "ResNet50", 64, 52.4, [(8, 378), (16, 751), (32, 1388), (64, 2744)], 8),
            ("inception-v3", "Inceptionv3", 64, 29.7, [(8, 229), (16, 459), (32, 902),
                                                       (64, 1783)], 6),
            ("resnet152", "ResNet152", 32, 19.4, [(8, 146), (16, 291), (32, 565), (64, 981)],
             4)]:
        for gpus, measured in points:
            nodes = gpus // 8
            servers = ps_at_64 if nodes == 8 else nodes
            training_case(
                "tf-benchmarks-2017", f"TFB-AWSK80-{key}-{gpus}", "scaling", "throughput",
                measured, "img/s", source="TFB", hw="p2.8xlarge", nodes=nodes, gpn=8,
                model=model, batch=batch, precision="fp32", optimizer="sgd",
                framework="tf-ps", grad_dtype="fp32", rate=rate,
                sync_extra={"ps": {"servers": servers, "placement": "colocated"}},
                calibration=f"TFB-AWSK80-{key}-1, {rate} img/s on one K80 GPU, synthetic data "
                            f"(compute.samples_per_second).",
                notes=[f"distributed_replicated: {servers} parameter server(s) colocated on the "
                       f"worker instances (#PS = #instances, except 6 for Inception-v3 and 4 "
                       f"for ResNet-152 at 8 instances); each instance first combines its 8 "
                       f"GPUs' gradients, as ddpsim's PS does.",
                       "The network is not stated; 10 Gb/s per the AWS p2.8xlarge "
                       "specification.",
                       "tf_cnn_benchmarks' default optimizer is plain SGD; synthetic data."])


# ---- tensorpack/benchmarks, Sep 2017: tf_cnn_benchmarks ResNet-50 on 8 P100s, the same runs
# with variable_update=replicated (NCCL all-reduce) and =parameter_server (variables on the CPU).
# The one public same-setup parameter-server-against-all-reduce table found outside the sources
# kept aside (scenarios/validation/README.md).
def tensorpack_multigpu():
    replicated_1 = 225.73  # 1 GPU, replicated: no communication at all, the compute alone
    rows = [
        # (variable_update, gpus, img/s): the 'tensorflow/benchmarks' column of both tables
        ("replicated", 2, 424.54), ("replicated", 4, 789.51), ("replicated", 8, 1580.58),
        ("ps", 1, 221.68), ("ps", 2, 421.01), ("ps", 4, 828.29), ("ps", 8, 1604.55),
    ]
    for update, gpus, measured in rows:
        if update == "ps":
            framework = "tf-ps"
            extra = {"ps": {"servers": 1, "placement": "colocated", "pull": "forward"}}
            notes = ["variable_update=parameter_server, local_parameter_device=cpu: modelled as "
                     "the 2017 TensorFlow page's DGX-1 ResNet-50 row is (one parameter server "
                     "colocated on the node, the host CPU; the forward pass reads each variable "
                     "as it needs it, sync.ps.pull: forward)."]
        else:
            framework, extra = "tf-replicated", None
            notes = ["variable_update=replicated: tf_cnn_benchmarks' default all-reduce, NCCL "
                     "(use_nccl), one all-reduce per gradient tensor."]
        training_case(
            "tensorpack-benchmarks", f"TPK-P100-ResNet50-{update}-{gpus}", "scaling",
            "throughput", measured, "img/s", source="TPK", hw="dgx1-p100", nodes=1, gpn=gpus,
            model="resnet50", batch=64, precision="fp32", optimizer="sgd",
            framework=framework, grad_dtype="fp32", rate=replicated_1, sync_extra=extra,
            compare=(f"ResNet-50, {gpus} P100, tf_cnn_benchmarks: parameter server vs "
                     f"all-reduce" if gpus > 1 else None),
            calibration=f"TPK-P100-ResNet50-replicated-1, {replicated_1} img/s on one P100 "
                        f"with variable_update=replicated, which communicates nothing on one "
                        f"GPU: the compute alone, for both variable_update modes "
                        f"(compute.samples_per_second). That row is not a case.",
            notes=notes + [
                "The README says '8 P100s'; an earlier version of it names the machine an "
                "NVIDIA DGX1 and warns that runs used 'machines of the same configurations, "
                "but not the same set of physical machines', and 'Experiments were not run "
                "for multiple times'.",
                "Synthetic data (--fake), batch 64, tf_cnn_benchmarks' default plain SGD."])


# ---- Bugliarello 2017: Inception-v3 with TF 1.1 parameter servers on EC2 (synthetic data)
def bugliarello():
    rate = 30.55  # one K80, parameter_server, synthetic (the 1-GPU row of both AWS tables)
    rows = {
        # system: [(gpus, parameter servers, variable_update, img/s)]
        "p2.8xlarge": [(2, 1, "distributed_replicated", 58.38),
                       (4, 1, "distributed_replicated", 116.34),
                       (8, 1, "distributed_replicated", 230.75),
                       (16, 1, "distributed_replicated", 448.57),
                       (32, 3, "distributed_replicated", 863.72),
                       (64, 8, "distributed_replicated", 1731.31),
                       (128, 16, "distributed_replicated", 3333.20)],
        "p2.xlarge": [(2, 2, "distributed_replicated", 57.45),
                      (4, 4, "distributed_replicated", 114.57),
                      (8, 8, "distributed_replicated", 228.41),
                      (16, 12, "distributed_replicated", 431.64),
                      (32, 32, "parameter_server", 825.64),
                      (64, 64, "parameter_server", 996.32),
                      (128, 128, "parameter_server", 1077.59)],
    }
    for hw, points in rows.items():
        gpn = HARDWARE[hw]["gpus"]
        tag = "P28" if hw == "p2.8xlarge" else "P2"
        for gpus, servers, update, measured in points:
            nodes = max(1, gpus // gpn)
            extra = {"ps": {"servers": servers, "placement": "colocated"}}
            if update == "parameter_server":
                extra["ps"]["pull"] = "forward"
            training_case(
                "bugliarello-2017", f"BUG-{tag}-Inceptionv3-{gpus}", "scaling", "throughput",
                measured, "img/s", source="BUG", hw=hw, nodes=nodes, gpn=min(gpus, gpn),
                model="inception-v3", batch=64, precision="fp32", optimizer="sgd",
                framework="tf-ps", grad_dtype="fp32", rate=rate, sync_extra=extra,
                pending=(None if hw == "p2.8xlarge" else
                         "needs the p2.xlarge network bandwidth: AWS lists it as 'High' with no "
                         "number"),
                calibration=f"BUG-{tag}-Inceptionv3-1, {rate} img/s on one K80, synthetic data "
                            f"(compute.samples_per_second).",
                notes=[f"{update} with {servers} parameter server(s) on the worker machines "
                       f"(the report's best setting for {gpus} GPUs; 'nodes running Workers also "
                       f"run Parameter Servers').",
                       "parameter_server: the forward pass reads each variable from its server "
                       "(sync.ps.pull: forward); distributed_replicated: each machine combines "
                       "its GPUs' gradients and refreshes its copies after the update."
                       if update == "parameter_server" else
                       "distributed_replicated: each machine first combines its GPUs' "
                       "gradients, as ddpsim's PS does, and refreshes its copies after the "
                       "update.",
                       "TF 1.1.0, batch 64 per GPU, NCHW, plain SGD, synthetic data (the "
                       "report's FALSE rows)."])


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


def main():
    resnet50_dle()
    bert_dle()
    transformer_dle()
    ptddpb()
    wgp()
    tf_benchmarks()
    tensorpack_multigpu()
    bugliarello()
    nccl()
    llm_foundry()
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
