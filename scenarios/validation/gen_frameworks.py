"""How each framework of the validation cases synchronises gradients, and the sync section of a
generated scenario. Part of generate.py."""

# Star imports: these modules were one file and share its names.
import os  # noqa: F401
import sys  # noqa: F401
import textwrap  # noqa: F401

from gen_assumptions import *  # noqa: F401,F403


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
    "mxnet-ps": dict(
        desc="MXNet kvstore dist_device_sync (ps-lite over TCP, ZeroMQ): each machine first sums "
             "its GPUs' gradients on the GPUs (device kvstore), then pushes one copy to the "
             "servers, which apply the update (update_on_kvstore) and are pulled as soon as they "
             "have; the dependency engine pushes each gradient array as backward produces it "
             "(overlap: true, one key per array); arrays over MXNET_KVSTORE_BIGARRAY_BOUND "
             "elements are spread over every server",
        sync=dict(strategy="ps", algorithm="ring", bucket_cap="0", overlap="true",
                  partition=MXNET_BIGARRAY_BOUND)),
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
