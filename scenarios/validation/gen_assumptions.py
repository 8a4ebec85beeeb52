"""The global assumptions every generated validation case uses (docs/model-assumptions.md):
effective bandwidth per link technology, latencies, framework defaults and the compute slowdown
beside NCCL kernels. One place, so that no case can tune its own. Part of generate.py."""

# Star imports: these modules were one file and share its names.
import os  # noqa: F401
import sys  # noqa: F401
import textwrap  # noqa: F401



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
# MXNet's distributed kvstore spreads an array of more than MXNET_KVSTORE_BIGARRAY_BOUND
# (1,000,000) elements over all servers and sends a smaller one whole (src/kvstore/kvstore_dist.h):
# fp32 pieces of at most 4,000,000 bytes.
MXNET_BIGARRAY_BOUND = "4000000B"
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
