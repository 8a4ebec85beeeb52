"""The DeepLearningExamples (ResNet-50, BERT-large, Transformer-big) and PyTorch DDP benchmark
cases. Part of generate.py."""

# Star imports: these modules were one file and share its names.
import os  # noqa: F401
import sys  # noqa: F401
import textwrap  # noqa: F401

from gen_assumptions import *  # noqa: F401,F403
from gen_hardware import *  # noqa: F401,F403
from gen_frameworks import *  # noqa: F401,F403
from gen_case_files import *  # noqa: F401,F403


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
