"""The TensorFlow cases: the 2017 benchmarks (DGX-1, EC2 K80), tensorpack's parameter server
against all-reduce table, Bugliarello's EC2 parameter servers. Part of generate.py."""

# Star imports: these modules were one file and share its names.
import os  # noqa: F401
import sys  # noqa: F401
import textwrap  # noqa: F401

from gen_assumptions import *  # noqa: F401,F403
from gen_hardware import *  # noqa: F401,F403
from gen_frameworks import *  # noqa: F401,F403
from gen_case_files import *  # noqa: F401,F403


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


# ---- TensorFlow benchmarks 2017, single K80 servers: parameter servers on the host CPU of a
# PCIe-only box (variable_update=parameter_server, local_parameter_device=cpu), synthetic data.
# Google Compute Engine ran every model that way; EC2 p2.8xlarge only Inception-v3 (its other
# models used replicated without NCCL or parameter servers on the GPUs, which ddpsim's
# host-placed servers do not describe: not cases).
def tf_benchmarks_k80_servers():
    tables = [
        # (tag, hw, section, [(model, key, batch, 1-GPU rate, [(gpus, img/s)])])
        ("GCEK80", "gce-k80x8", "Details for Google Compute Engine (NVIDIA Tesla K80)", [
            ("inception-v3", "Inceptionv3", 64, 30.5, [(2, 57.8), (4, 116), (8, 227)]),
            ("resnet50", "ResNet50", 64, 51.9, [(2, 99.0), (4, 195), (8, 387)]),
            ("resnet152", "ResNet152", 32, 20.0, [(2, 38.2), (4, 75.8), (8, 148)]),
            ("alexnet", "AlexNet", 512, 656, [(2, 1209), (4, 2328), (8, 4640)]),
            ("vgg16", "VGG16", 32, 35.4, [(2, 64.8), (4, 120), (8, 234)])]),
        ("AWSK80-1N", "p2.8xlarge", "Details for Amazon EC2 (NVIDIA Tesla K80)", [
            ("inception-v3", "Inceptionv3", 64, 30.8, [(2, 58.7), (4, 117), (8, 230)])]),
    ]
    for tag, hw, section, models in tables:
        for model, key, batch, rate, points in models:
            for gpus, measured in points:
                training_case(
                    "tf-benchmarks-2017", f"TFB-{tag}-{key}-{gpus}", "scaling", "throughput",
                    measured, "img/s", source="TFB", hw=hw, nodes=1, gpn=gpus, model=model,
                    batch=batch, precision="fp32", optimizer="sgd", framework="tf-ps",
                    grad_dtype="fp32", rate=rate,
                    sync_extra={"ps": {"servers": 1, "placement": "colocated",
                                       "pull": "forward"}},
                    calibration=f"TFB-{tag}-{key}-1, {rate} img/s on one K80 GPU, synthetic "
                                f"data, section '{section}' (compute.samples_per_second).",
                    notes=["variable_update=parameter_server with local_parameter_device=cpu: "
                           "modelled as the DGX-1 rows of the same page are (one parameter "
                           "server colocated on the node, the host CPU; the forward pass reads "
                           "each variable as it needs it, sync.ps.pull: forward).",
                           f"Section '{section}', table 'Training synthetic data'; batch "
                           f"{batch} per GPU, tf_cnn_benchmarks' default plain SGD.",
                           "Single server: the network is not used."])


# ---- TensorFlow benchmarks 2017, EC2 p2.8xlarge distributed at batch 32 per GPU ('Other
# Results' of the distributed section): the same cluster, software and parameter-server layout
# as the batch-64 rows of tf_benchmarks(), at half the compute per step.
def tf_benchmarks_aws_batch32():
    for model, key, rate, points, ps_at_64 in [
            ("inception-v3", "Inceptionv3", 29.2, [(8, 219), (16, 427), (32, 820), (64, 1608)],
             6),
            ("resnet50", "ResNet50", 48.4, [(8, 333), (16, 667), (32, 1180), (64, 2315)], 4)]:
        for gpus, measured in points:
            nodes = gpus // 8
            servers = ps_at_64 if nodes == 8 else nodes
            training_case(
                "tf-benchmarks-2017", f"TFB-AWSK80-{key}-b32-{gpus}", "scaling", "throughput",
                measured, "img/s", source="TFB", hw="p2.8xlarge", nodes=nodes, gpn=8,
                model=model, batch=32, precision="fp32", optimizer="sgd", framework="tf-ps",
                grad_dtype="fp32", rate=rate,
                sync_extra={"ps": {"servers": servers, "placement": "colocated"}},
                calibration=f"TFB-AWSK80-{key}-b32-1, {rate} img/s on one K80 GPU at batch 32, "
                            f"synthetic data (compute.samples_per_second).",
                notes=[f"distributed_replicated: {servers} parameter server(s) colocated on the "
                       f"worker instances (#PS = #instances, except at 8 instances: 6 for "
                       f"Inception-v3, 4 for 'ResNet-50: (batch size 32)'; the page states the "
                       f"Inception-v3 exception without a batch size and it is read for both); "
                       f"each instance first combines its 8 GPUs' gradients, as ddpsim's PS "
                       f"does.",
                       "Section 'Details for Amazon EC2 Distributed (NVIDIA Tesla K80)', 'Other "
                       "Results', batch 32 per GPU.",
                       "The network is not stated; 10 Gb/s per the AWS p2.8xlarge "
                       "specification.",
                       "tf_cnn_benchmarks' default optimizer is plain SGD; synthetic data."])
