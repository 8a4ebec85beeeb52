"""Lambda's PyTorch benchmark logs: ResNet-50 with DDP on PCIe-only boxes of GeForce GPUs (no
NVLink, no peer-to-peer), from one GPU to eight. Part of generate.py."""

# Star imports: these modules were one file and share its names.
import os  # noqa: F401
import sys  # noqa: F401
import textwrap  # noqa: F401

from gen_assumptions import *  # noqa: F401,F403
from gen_hardware import *  # noqa: F401,F403
from gen_frameworks import *  # noqa: F401,F403
from gen_case_files import *  # noqa: F401,F403


# ---- lambdal/deeplearning-benchmark (commit aa5addb6), pytorch/results/: each run's log ends in
# "Summary: train.loss : ... train.total_ips : N img/s"; the repository's CSV tables round those.
# Only rows whose machine is PCIe-only are cases: GeForce cards without an NVLink bridge (Lambda
# names bridged runs "NVLink", e.g. 2x2080TiNVlink_trt, which are not used).
def lambda_resnet50():
    rows = [
        # (tag, hw, gpu, container, precision, batch, data, (log dir, img/s) at 1 GPU,
        #  [(gpus, log dir, img/s)])
        ("2080TI", "x11dpg-2080ti", "rtx-2080-ti", "pytorch:20.01-py3", "fp32", 100, "dali-cpu",
         ("2080Ti/PyTorch_resnet50_FP32/23-06-2020_19-38-50.txt", 275.10),
         [(2, "2x2080Ti_trt/PyTorch_resnet50_FP32/01-07-2020_18-20-38.txt", 497.12),
          (4, "4x2080Ti_trt/PyTorch_resnet50_FP32/02-07-2020_07-43-57.txt", 996.88),
          (8, "8x2080Ti_trt/PyTorch_resnet50_FP32/02-07-2020_08-31-06.txt", 2000.88)]),
        ("2080TI", "x11dpg-2080ti", "rtx-2080-ti", "pytorch:20.01-py3", "amp", 160, "dali-cpu",
         ("2080Ti/PyTorch_resnet50_AMP/23-06-2020_19-08-09.txt", 528.71),
         [(2, "2x2080Ti_trt/PyTorch_resnet50_AMP/01-07-2020_17-55-34.txt", 970.41),
          (4, "4x2080Ti_trt/PyTorch_resnet50_AMP/02-07-2020_07-24-12.txt", 1915.44),
          (8, "8x2080Ti_trt/PyTorch_resnet50_AMP/02-07-2020_08-11-54.txt", 3823.42)]),
        ("4090", "wrx80-2gpu", "rtx-4090", "pytorch:22.09-py3", "fp32", 224, "synthetic",
         ("4090_v1/PyTorch_resnet50_FP32/16-10-2022_00-11-17.txt", 721.00),
         [(2, "2x4090_v1/PyTorch_resnet50_FP32/17-10-2022_05-03-12.txt", 1363.14)]),
        ("4090", "wrx80-2gpu", "rtx-4090", "pytorch:22.09-py3", "amp", 448, "synthetic",
         ("4090_v1/PyTorch_resnet50_AMP/15-10-2022_23-46-13.txt", 1301.15),
         [(2, "2x4090_v1/PyTorch_resnet50_AMP/17-10-2022_04-43-47.txt", 2467.75)]),
        ("3090", "wrx80-2gpu", "rtx-3090", "pytorch:22.09-py3", "fp32", 224, "synthetic",
         ("3090_v1/PyTorch_resnet50_FP32/24-10-2022_23-28-58.txt", 513.04),
         [(2, "2x3090_v1/PyTorch_resnet50_FP32/25-10-2022_00-23-47.txt", 978.92)]),
        ("3090", "wrx80-2gpu", "rtx-3090", "pytorch:22.09-py3", "amp", 448, "synthetic",
         ("3090_v1/PyTorch_resnet50_AMP/24-10-2022_22-56-58.txt", 905.05),
         [(2, "2x3090_v1/PyTorch_resnet50_AMP/24-10-2022_23-57-08.txt", 1751.33)]),
    ]
    for tag, hw, gpu, container, prec, batch, data, (one_log, rate), points in rows:
        key = prec.upper()
        for gpus, log, measured in points:
            training_case(
                "lambda-pcie", f"LAMBDA-{tag}-RN50-{key}-{gpus}", "scaling", "throughput",
                measured, "img/s", source="LAMBDA", hw=hw, nodes=1, gpn=gpus, gpu=gpu,
                model="resnet50", batch=batch,
                precision="fp16" if prec == "amp" else "fp32", optimizer="momentum",
                framework="pytorch-ddp", grad_dtype="fp32", rate=rate,
                calibration=f"LAMBDA-{tag}-RN50-{key}-1, {rate} img/s on one GPU of the same "
                            f"kind, log pytorch/results/{one_log} "
                            f"(compute.samples_per_second).",
                notes=[f"Log pytorch/results/{log}; NGC {container}; --batch-size {batch} per "
                       f"GPU, data_backend {data}, SGD with momentum 0.9.",
                       "AMP keeps fp32 weights and gradients, so DDP reduces 4 bytes per "
                       "parameter." if prec == "amp" else "Gradients are fp32.",
                       "GeForce cards: no PCIe peer-to-peer (docs/model-assumptions.md), NCCL "
                       "stages through host memory; no NVLink bridge (Lambda names bridged runs "
                       "'NVLink').",
                       "Real ImageNet through DALI on the CPU in the source; the loader is not "
                       "simulated (its cost at one GPU is inside the single-GPU rate, as in the "
                       "other DeepLearningExamples cases)." if data == "dali-cpu" else
                       "Synthetic data, as the measurement.",
                       "DeepLearningExamples' DDP wrapper is modelled as PyTorch DDP (25 MiB "
                       "buckets), as for the other DeepLearningExamples PyTorch cases."])


# ---- The same machines and logs: BERT-base SQuAD v1.1 fine-tuning (DeepLearningExamples
# run_squad.py, max_seq_length 384, Adam). The repository's patched copy of the script
# (pytorch/scripts/patch/run_squad.py) wraps the model in apex.parallel.DistributedDataParallel and,
# under --fp16, apex amp O2 (fp16 weights, so fp16 gradients on the wire); the 2020 container's
# script is read as doing the same.
def lambda_bert_base_squad():
    rows = [
        # (tag, hw, gpu, container, precision, batch, (1-GPU log, seq/s), [(gpus, log, seq/s)])
        ("2080TI", "x11dpg-2080ti", "rtx-2080-ti", "pytorch:20.01-py3", "fp32", 10,
         ("2080Ti/PyTorch_bert_base_squad_FP32/23-06-2020_19-37-20.txt", 30.8737),
         [(2, "2x2080Ti_trt/PyTorch_bert_base_squad_FP32/01-07-2020_18-19-29.txt", 49.1884),
          (4, "4x2080Ti_trt/PyTorch_bert_base_squad_FP32/02-07-2020_07-43-04.txt", 89.5255),
          (8, "8x2080Ti_trt/PyTorch_bert_base_squad_FP32/02-07-2020_08-30-21.txt", 160.742)]),
        ("2080TI", "x11dpg-2080ti", "rtx-2080-ti", "pytorch:20.01-py3", "fp16", 20,
         ("2080Ti/PyTorch_bert_base_squad_FP16/23-06-2020_19-10-57.txt", 88.0282),
         [(2, "2x2080Ti_trt/PyTorch_bert_base_squad_FP16/01-07-2020_17-58-42.txt", 141.044),
          (4, "4x2080Ti_trt/PyTorch_bert_base_squad_FP16/02-07-2020_07-27-06.txt", 250.602),
          (8, "8x2080Ti_trt/PyTorch_bert_base_squad_FP16/02-07-2020_08-15-04.txt", 370.861)]),
        ("4090", "wrx80-2gpu", "rtx-4090", "pytorch:22.09-py3", "fp32", 48,
         ("4090_v1/PyTorch_bert_base_squad_FP32/17-10-2022_06-26-41.txt", 137.1558364383139),
         [(2, "2x4090_v1/PyTorch_bert_base_squad_FP32/17-10-2022_06-37-05.txt",
           232.21799448286936)]),
        ("4090", "wrx80-2gpu", "rtx-4090", "pytorch:22.09-py3", "fp16", 96,
         ("4090_v1/PyTorch_bert_base_squad_FP16/17-10-2022_06-27-43.txt", 297.6732082495243),
         [(2, "2x4090_v1/PyTorch_bert_base_squad_FP16/17-10-2022_06-38-18.txt",
           541.6900029421747)]),
        ("3090", "wrx80-2gpu", "rtx-3090", "pytorch:22.09-py3", "fp32", 48,
         ("3090_v1/PyTorch_bert_base_squad_FP32/24-10-2022_23-15-49.txt", 85.68310497744616),
         [(2, "2x3090_v1/PyTorch_bert_base_squad_FP32/25-10-2022_00-14-43.txt",
           154.7686960057696)]),
        ("3090", "wrx80-2gpu", "rtx-3090", "pytorch:22.09-py3", "fp16", 96,
         ("3090_v1/PyTorch_bert_base_squad_FP16/24-10-2022_23-35-09.txt", 172.19775863028542),
         [(2, "2x3090_v1/PyTorch_bert_base_squad_FP16/25-10-2022_00-29-14.txt",
           327.4211792599542)]),
    ]
    for tag, hw, gpu, container, prec, batch, (one_log, rate), points in rows:
        key = prec.upper()
        for gpus, log, measured in points:
            training_case(
                "lambda-pcie", f"LAMBDA-{tag}-BERTB-SQuAD-{key}-{gpus}", "scaling", "throughput",
                measured, "seq/s", source="LAMBDA", hw=hw, nodes=1, gpn=gpus, gpu=gpu,
                model="bert-base-squad", sequence=384, batch=batch, precision=prec,
                optimizer="adam", framework="pytorch-ddp", grad_dtype=prec, rate=rate,
                calibration=f"LAMBDA-{tag}-BERTB-SQuAD-{key}-1, {rate} seq/s on one GPU of the "
                            f"same kind, log pytorch/results/{one_log} "
                            f"(compute.samples_per_second).",
                notes=[f"Log pytorch/results/{log}; NGC {container}; run_squad.py "
                       f"--train_batch_size={batch} (per GPU) --max_seq_length=384, SQuAD v1.1, "
                       f"Adam.",
                       "--fp16 is apex amp O2: fp16 weights and gradients, 2 bytes per parameter "
                       "on the wire." if prec == "fp16" else "Gradients are fp32.",
                       "GeForce cards: no PCIe peer-to-peer (docs/model-assumptions.md), NCCL "
                       "stages through host memory; no NVLink bridge (Lambda names bridged runs "
                       "'NVLink').",
                       "apex.parallel.DistributedDataParallel (buckets of 10M elements, "
                       "overlapped with backward) is modelled as PyTorch DDP (25 MiB buckets), "
                       "the framework table's one NCCL data-parallel wrapper."])
