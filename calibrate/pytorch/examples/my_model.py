"""A model as a user writes it in their own file: a small pre-norm transformer that classifies
token sequences, with a hand-written RMSNorm, attention written with plain matmuls and softmax
(no nn.MultiheadAttention) and a SwiGLU MLP. The README exports and simulates it:

    python3 calibrate/pytorch/ddpsim_torch.py export calibrate/pytorch/examples/my_model.py:build \\
        --input 512:int64:32000 --batch 32 -o my_model.yaml
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return self.weight * x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps)


class Block(nn.Module):
    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.heads = heads
        self.norm1 = RMSNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        self.norm2 = RMSNorm(dim)
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, dim=-1)
        q, k, v = (y.view(b, t, self.heads, d // self.heads).transpose(1, 2) for y in (q, k, v))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(d // self.heads)
        context = torch.matmul(F.softmax(scores, dim=-1), v).transpose(1, 2).reshape(b, t, d)
        x = x + self.out(context)
        return x + self.down(F.silu(self.gate(self.norm2(x))) * self.up(self.norm2(x)))


class SequenceClassifier(nn.Module):
    def __init__(self, vocab=32000, dim=512, depth=8, heads=8, hidden=1408, classes=10):
        super().__init__()
        self.embed = nn.Embedding(vocab, dim)
        self.blocks = nn.ModuleList([Block(dim, heads, hidden) for _ in range(depth)])
        self.norm = RMSNorm(dim)
        self.head = nn.Linear(dim, classes)

    def forward(self, tokens):
        x = self.embed(tokens)
        for block in self.blocks:
            x = block(x)
        return self.head(self.norm(x).mean(dim=1))


def build():
    return SequenceClassifier()
