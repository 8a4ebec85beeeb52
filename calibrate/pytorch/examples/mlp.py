"""A plain MLP (Linear + ReLU), the communication-heavy model of the ground-truth runs: many
parameters per FLOP, so its gradients take longer to all-reduce than its step takes to compute.

    python3 calibrate/pytorch/ddpsim_torch.py export calibrate/pytorch/examples/mlp.py:build \\
        --arg widths=[1024,1024,512,10] --input 1024 --batch 64 -o mlp.yaml
"""

import torch.nn as nn


def build(widths=(1024, 1024, 512, 10)):
    widths = list(widths)
    layers = []
    for i in range(len(widths) - 1):
        layers.append(nn.Linear(widths[i], widths[i + 1]))
        if i + 2 < len(widths):
            layers.append(nn.ReLU())
    return nn.Sequential(*layers)
