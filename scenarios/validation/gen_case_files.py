"""The sources of the validation cases, one case as a scenario (training_case), its validation
section, and writing the file with its comments. Every case file goes through write(), which
records it in WRITTEN so that generate.py can remove stale files. Part of generate.py."""

# Star imports: these modules were one file and share its names.
import os  # noqa: F401
import sys  # noqa: F401
import textwrap  # noqa: F401

from gen_assumptions import *  # noqa: F401,F403
from gen_hardware import *  # noqa: F401,F403
from gen_frameworks import *  # noqa: F401,F403

HERE = os.path.dirname(os.path.abspath(__file__))


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
    "LAMBDA": "lambdal/deeplearning-benchmark pytorch/results/<system>/PyTorch_<model>_<precision>/"
              "<date>.txt (commit aa5addb6, Lambda's run logs behind its pytorch-train-throughput "
              "tables; NVIDIA DeepLearningExamples ResNet-50 v1.5 'Summary: ... train.total_ips' "
              "and BERT-base SQuAD 'training throughput' / 'training_sequences_per_second')",
    "MXLSC": "apache/mxnet docs/tutorials/vision/large_scale_classification.md, section "
             "'Scalability' (commit 013965b8, May 2017; MXNet with CUDA 7.5, cuDNN 5.1 on up to "
             "16 P2.16xlarge)",
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
