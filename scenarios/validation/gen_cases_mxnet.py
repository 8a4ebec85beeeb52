"""The MXNet tutorial's scalability table (parameter servers over 20 Gb/s TCP on up to 16 AWS
P2.16xlarge). Part of generate.py."""

from gen_case_files import training_case


# ---- apache/mxnet docs/tutorials/vision/large_scale_classification.md, 'Scalability' (May 2017):
# images per second of the whole cluster, batch per GPU fixed, 1-16 GPUs on one machine, then
# 2-16 machines of 16 GPUs. The tutorial's launch line (tools/launch.py -n 16 -H hosts, no -s)
# starts as many servers as workers: one per machine, beside its worker.
# Pending: the P2.16xlarge's PCIe tree. Two Broadwell-EP sockets (Xeon E5-2686 v4; the E5-2600 v4
# family has 40 PCIe gen3 lanes per socket) give 80 lanes to 8 K80 boards of x16 each (128): the
# boards share upstream links through switches whose layout AWS does not publish. Written as the
# p2.8xlarge is (each board its own x16), the machine is predicted too fast already without a
# network (2026-11-30, ddpsim validate: 16 GPUs AlexNet 7,357 img/s against 4,244 measured, +73 %;
# Inception-v3 +9 %, ResNet-152 +12 %; 2-16 machines +11 to +90 %). The cases wait for that
# layout (nvidia-smi topo -m of a P2.16xlarge from a public source), not for a fit.
PENDING = ("needs the P2.16xlarge's PCIe switch layout: 80 CPU lanes (2 Broadwell-EP sockets) for "
           "8 K80 boards of x16, shared through switches AWS does not publish; written with a x16 "
           "per board, 16 GPUs on one machine run 73 % too fast (AlexNet)")


def mxnet_large_scale():
    for model, key, batch, points in [
            ("alexnet", "AlexNet", 512, [(1, 457.07), (2, 870.43), (4, 1514.8), (8, 2852.5),
                                         (16, 4244.18), (32, 7945.57), (64, 15840.52),
                                         (128, 31334.88), (256, 61938.36)]),
            ("inception-v3", "Inceptionv3", 32, [(1, 30.4), (2, 59.61), (4, 117.9), (8, 233.39),
                                                 (16, 447.61), (32, 882.57), (64, 1761.24),
                                                 (128, 3416.2), (256, 6660.98)]),
            ("resnet152", "ResNet152", 32, [(1, 20.8), (2, 38.76), (4, 77.01), (8, 153.07),
                                            (16, 298.03), (32, 595.53), (64, 1179.86),
                                            (128, 2333.47), (256, 4630.42)])]:
        rate = points[0][1]
        for gpus, measured in points[1:]:
            nodes = max(1, gpus // 16)
            notes = [f"kvstore dist_device_sync with {nodes} server(s), one on each machine "
                     f"(tools/launch.py starts as many servers as workers when -s is not given); "
                     f"ddpsim's parameter server first reduce-scatters inside the machine, MXNet "
                     f"sums each array on one GPU: the same bytes cross PCIe.",
                     "The source does not say whether the scalability runs read ImageNet (the "
                     "tutorial's training command reads it from EFS) or synthetic data: modelled "
                     "without an input pipeline; the 1-GPU calibration row holds whatever one "
                     "GPU's loading cost.",
                     "SGD with momentum 0.9 (example/image-classification/common/fit.py's defaults: "
                     "--optimizer sgd, --mom 0.9), applied on the servers."]
            if model == "alexnet":
                notes.append("The source gives AlexNet's model as 203 MB; ddpsim's zoo AlexNet "
                             "(torchvision, 61.1 M parameters) is 244 MB: not adjusted.")
            if model == "resnet152":
                notes.append("ResNet-152 on 1 GPU: 20.8 img/s in the tutorial, 20.08 in "
                             "example/image-classification/README.md (the same table).")
            training_case(
                "mxnet-large-scale", f"MXLSC-K80-{key}-{gpus}", "scaling", "throughput",
                measured, "img/s", source="MXLSC", hw="p2.16xlarge", nodes=nodes,
                gpn=min(gpus, 16), model=model, batch=batch, precision="fp32", optimizer="momentum",
                framework="mxnet-ps", grad_dtype="fp32", rate=rate, pending=PENDING,
                sync_extra={"ps": {"servers": nodes, "placement": "colocated"}},
                calibration=f"MXLSC-K80-{key}-1, {rate:g} img/s on one K80 GPU "
                            f"(compute.samples_per_second).",
                notes=notes)
