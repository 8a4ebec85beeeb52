"""The hardware of the validation cases (GPU systems, their NVLink, PCIe, NICs) and the cluster
section of a generated scenario, with the assumptions it uses. Part of generate.py."""

# Star imports: these modules were one file and share its names.
import os  # noqa: F401
import sys  # noqa: F401
import textwrap  # noqa: F401

from gen_assumptions import *  # noqa: F401,F403


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
    "gce-k80x8": dict(
        desc="Google Compute Engine n1-standard-32-k80x8: 8 GK210 GPUs on 4 K80 boards (two GPUs "
             "share a board's PCIe gen3 x16 through its PLX switch; no NVLink), 32 vCPUs",
        gpu="k80", gpus=8, kind="pcie", link_rate=0.0, links={}, pcie_line=15.75,
        switch=(2, 15.75), cores=32, nics=1, nic_gbps=100, nic_kind="none used (one node)",
        nic_latency=IB_LATENCY),
    "x11dpg-2080ti": dict(
        desc="Supermicro X11DPG-OT-CPU baseboard (the source's sys_pytorch.txt; its folder suffix "
             "'_trt' read as the SYS-4029GP-TRT, whose GPUs hang off both CPUs), 8x GeForce RTX "
             "2080 Ti on PCIe gen3 x16, 2x 20-core Xeon Gold 6230; the PCIe switch layout is not "
             "stated: each GPU modelled on its own x16 link",
        gpu="rtx-2080-ti", gpus=8, kind="pcie", link_rate=0.0, links={}, pcie_line=15.75,
        cores=40, nics=1, nic_gbps=100, nic_kind="none used (one node)", nic_latency=IB_LATENCY,
        host_line=(140.8, "Xeon Gold 6230: 6 channels of DDR4-2933, Intel's specification; one "
                          "socket's, the GPUs hang off both")),
    "wrx80-2gpu": dict(
        desc="ASUS Pro WS WRX80E-SAGE SE WIFI workstation (the source's sys_pytorch.txt), AMD "
             "Threadripper PRO 5995WX (64 cores, 8 channels of DDR4-3200), GPUs in the board's "
             "PCIe 4.0 x16 slots wired to the CPU (no PCIe switch)",
        gpu="rtx-4090", gpus=2, kind="pcie", link_rate=0.0, links={}, pcie_line=31.5,
        cores=64, nics=1, nic_gbps=100, nic_kind="none used (one node)", nic_latency=IB_LATENCY,
        host_line=(204.8, "Threadripper PRO 5995WX: 8 channels of DDR4-3200, AMD's "
                          "specification")),
    "p2.xlarge": dict(
        desc="AWS p2.xlarge: one GK210 GPU (half a K80 board), 4 vCPUs, network 'High' (AWS "
             "states no number; 10 Gb/s written here is a placeholder)",
        gpu="k80", gpus=1, kind="pcie", link_rate=0.0, links={}, pcie_line=15.75,
        cores=4, nics=1, nic_gbps=10, nic_kind="Ethernet (TCP)", nic_latency=TCP_LATENCY,
        transport="tcp"),
    "p2.16xlarge": dict(
        desc="AWS p2.16xlarge: 16 GK210 GPUs on 8 K80 boards (two GPUs share a board's PCIe gen3 "
             "x16 through its PLX switch; no NVLink), 64 vCPUs, 20 Gb/s Ethernet (the source: "
             "'connected by 20 Gbps ethernet'); the switches between the boards and the two "
             "sockets are not modelled, as for the p2.8xlarge",
        gpu="k80", gpus=16, kind="pcie", link_rate=0.0, links={}, pcie_line=15.75,
        switch=(2, 15.75), cores=64, nics=1, nic_gbps=20, nic_kind="Ethernet (TCP)",
        nic_latency=TCP_LATENCY, transport="tcp"),
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
        line, why = hw.get("host_line", (HOST_MEMORY_LINE, "the source does not state the CPU: "
                                                           "8 channels of DDR4-3200"))
        host = HOST_EFFICIENCY * line
        body.append("  host: {bandwidth: %s}" % gbs(host))
        lines.append(f"# Host memory: {line:g} GB/s per socket ({why}) x {HOST_EFFICIENCY} "
                     f"(global host efficiency) = {gbs(host)}.")
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
