"""BERT and GPT-2 written in plain PyTorch, module for module as Hugging Face transformers
writes them (same attribute names, parameter shapes and order, forward order, eager attention),
so they stand in for `transformers` where it is not installed. Each is also an example of a
model defined in a user's own file:

    python3 calibrate/pytorch/ddpsim_torch.py export \\
        calibrate/pytorch/examples/transformers_local.py:gpt2_small --input 1024:int64:50257 ...

Parameter counts: bert_base() 109,482,240 (HF BertModel, bert-base-uncased); gpt2_small()
124,439,808 (HF GPT2LMHeadModel, gpt2: lm_head tied to wte).
"""

import math

import torch
import torch.nn as nn
import torch.nn.functional as F


# ---------------------------------------------------------------- BERT (HF BertModel)

class BertEmbeddings(nn.Module):
    def __init__(self, vocab, hidden, max_positions, token_types, dropout):
        super().__init__()
        self.word_embeddings = nn.Embedding(vocab, hidden, padding_idx=0)
        self.position_embeddings = nn.Embedding(max_positions, hidden)
        self.token_type_embeddings = nn.Embedding(token_types, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(dropout)
        self.register_buffer("position_ids", torch.arange(max_positions).expand((1, -1)),
                             persistent=False)
        self.register_buffer("token_type_ids", torch.zeros((1, max_positions), dtype=torch.long),
                             persistent=False)

    def forward(self, input_ids):
        seq = input_ids.shape[1]
        position_ids = self.position_ids[:, :seq]
        token_type_ids = self.token_type_ids[:, :seq].expand(input_ids.shape[0], seq)
        embeddings = self.word_embeddings(input_ids) + self.token_type_embeddings(token_type_ids)
        embeddings = embeddings + self.position_embeddings(position_ids)
        return self.dropout(self.LayerNorm(embeddings))


class BertSelfAttention(nn.Module):
    def __init__(self, hidden, heads, dropout):
        super().__init__()
        self.heads, self.head_size = heads, hidden // heads
        self.query = nn.Linear(hidden, hidden)
        self.key = nn.Linear(hidden, hidden)
        self.value = nn.Linear(hidden, hidden)
        self.dropout = nn.Dropout(dropout)

    def split(self, x):
        return x.view(x.shape[0], x.shape[1], self.heads, self.head_size).permute(0, 2, 1, 3)

    def forward(self, hidden_states):
        q = self.split(self.query(hidden_states))
        k = self.split(self.key(hidden_states))
        v = self.split(self.value(hidden_states))
        scores = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.head_size)
        probs = self.dropout(F.softmax(scores, dim=-1))
        context = torch.matmul(probs, v).permute(0, 2, 1, 3).contiguous()
        return context.view(context.shape[0], context.shape[1], -1)


class BertResidualOutput(nn.Module):
    """BertSelfOutput and BertOutput: dense, dropout, LayerNorm(h + input)."""

    def __init__(self, d_in, hidden, dropout):
        super().__init__()
        self.dense = nn.Linear(d_in, hidden)
        self.LayerNorm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(dropout)

    def forward(self, hidden_states, input_tensor):
        return self.LayerNorm(self.dropout(self.dense(hidden_states)) + input_tensor)


class BertAttention(nn.Module):
    def __init__(self, hidden, heads, dropout):
        super().__init__()
        self.self = BertSelfAttention(hidden, heads, dropout)
        self.output = BertResidualOutput(hidden, hidden, dropout)

    def forward(self, x):
        return self.output(self.self(x), x)


class BertIntermediate(nn.Module):
    def __init__(self, hidden, intermediate):
        super().__init__()
        self.dense = nn.Linear(hidden, intermediate)
        self.intermediate_act_fn = nn.GELU()

    def forward(self, x):
        return self.intermediate_act_fn(self.dense(x))


class BertLayer(nn.Module):
    def __init__(self, hidden, heads, intermediate, dropout):
        super().__init__()
        self.attention = BertAttention(hidden, heads, dropout)
        self.intermediate = BertIntermediate(hidden, intermediate)
        self.output = BertResidualOutput(intermediate, hidden, dropout)

    def forward(self, x):
        attention = self.attention(x)
        return self.output(self.intermediate(attention), attention)


class BertEncoder(nn.Module):
    def __init__(self, layers, *args):
        super().__init__()
        self.layer = nn.ModuleList([BertLayer(*args) for _ in range(layers)])

    def forward(self, x):
        for layer in self.layer:
            x = layer(x)
        return x


class BertPooler(nn.Module):
    def __init__(self, hidden):
        super().__init__()
        self.dense = nn.Linear(hidden, hidden)
        self.activation = nn.Tanh()

    def forward(self, x):
        return self.activation(self.dense(x[:, 0]))


class BertModel(nn.Module):
    def __init__(self, vocab=30522, hidden=768, layers=12, heads=12, intermediate=3072,
                 max_positions=512, token_types=2, dropout=0.1):
        super().__init__()
        self.embeddings = BertEmbeddings(vocab, hidden, max_positions, token_types, dropout)
        self.encoder = BertEncoder(layers, hidden, heads, intermediate, dropout)
        self.pooler = BertPooler(hidden)

    def forward(self, input_ids):
        sequence = self.encoder(self.embeddings(input_ids))
        return sequence, self.pooler(sequence)


def bert_base():
    return BertModel()


# ---------------------------------------------------------------- GPT-2 (HF GPT2LMHeadModel)

class Conv1D(nn.Module):
    """HF's Conv1D: a linear layer whose weight is stored transposed, (in, out)."""

    def __init__(self, nf, nx):
        super().__init__()
        self.nf = nf
        self.weight = nn.Parameter(torch.empty(nx, nf))
        self.bias = nn.Parameter(torch.zeros(nf))
        nn.init.normal_(self.weight, std=0.02)

    def forward(self, x):
        size_out = x.size()[:-1] + (self.nf,)
        x = torch.addmm(self.bias, x.view(-1, x.size(-1)), self.weight)
        return x.view(size_out)


class NewGELUActivation(nn.Module):
    """gelu_new: the tanh approximation GPT-2 was trained with."""

    def forward(self, x):
        return 0.5 * x * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) *
                                           (x + 0.044715 * torch.pow(x, 3.0))))


class GPT2Attention(nn.Module):
    def __init__(self, hidden, heads, max_positions, dropout, attention="eager"):
        super().__init__()
        if attention not in ("eager", "sdpa"):
            raise ValueError("attention must be 'eager' or 'sdpa', got %r" % (attention,))
        self.attention, self.dropout_p = attention, dropout
        self.heads, self.head_dim, self.split_size = heads, hidden // heads, hidden
        self.c_attn = Conv1D(3 * hidden, hidden)
        self.c_proj = Conv1D(hidden, hidden)
        self.attn_dropout = nn.Dropout(dropout)
        self.resid_dropout = nn.Dropout(dropout)

    def split_heads(self, x):
        return x.view(x.size()[:-1] + (self.heads, self.head_dim)).permute(0, 2, 1, 3)

    def forward(self, hidden_states):
        query, key, value = self.c_attn(hidden_states).split(self.split_size, dim=2)
        query, key, value = self.split_heads(query), self.split_heads(key), self.split_heads(value)
        if self.attention == "sdpa":  # HF's attn_implementation="sdpa": one fused kernel
            out = F.scaled_dot_product_attention(
                query, key, value, dropout_p=self.dropout_p if self.training else 0.0,
                is_causal=True).permute(0, 2, 1, 3).contiguous()
            out = out.view(out.size()[:-2] + (self.heads * self.head_dim,))
            return self.resid_dropout(self.c_proj(out))
        weights = torch.matmul(query, key.transpose(-1, -2)) / (value.size(-1) ** 0.5)
        # HF keeps this mask as a bool buffer; Gloo cannot broadcast bool tensors, which DDP
        # does with every buffer when it starts, so it is made here instead.
        q_len, k_len = query.size(-2), key.size(-2)
        causal_mask = torch.ones((k_len, k_len), dtype=torch.bool,
                                 device=weights.device).tril()[k_len - q_len:k_len]
        mask_value = torch.full([], torch.finfo(weights.dtype).min, dtype=weights.dtype,
                                device=weights.device)
        weights = torch.where(causal_mask, weights, mask_value)
        weights = self.attn_dropout(F.softmax(weights, dim=-1))
        out = torch.matmul(weights, value).permute(0, 2, 1, 3).contiguous()
        out = out.view(out.size()[:-2] + (self.heads * self.head_dim,))
        return self.resid_dropout(self.c_proj(out))


class GPT2MLP(nn.Module):
    def __init__(self, hidden, dropout):
        super().__init__()
        self.c_fc = Conv1D(4 * hidden, hidden)
        self.c_proj = Conv1D(hidden, 4 * hidden)
        self.act = NewGELUActivation()
        self.dropout = nn.Dropout(dropout)

    def forward(self, x):
        return self.dropout(self.c_proj(self.act(self.c_fc(x))))


class GPT2Block(nn.Module):
    def __init__(self, hidden, heads, max_positions, dropout, attention="eager"):
        super().__init__()
        self.ln_1 = nn.LayerNorm(hidden, eps=1e-5)
        self.attn = GPT2Attention(hidden, heads, max_positions, dropout, attention)
        self.ln_2 = nn.LayerNorm(hidden, eps=1e-5)
        self.mlp = GPT2MLP(hidden, dropout)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.mlp(self.ln_2(x))


class GPT2Model(nn.Module):
    def __init__(self, vocab, hidden, layers, heads, max_positions, dropout, attention="eager"):
        super().__init__()
        self.wte = nn.Embedding(vocab, hidden)
        self.wpe = nn.Embedding(max_positions, hidden)
        self.drop = nn.Dropout(dropout)
        self.h = nn.ModuleList([GPT2Block(hidden, heads, max_positions, dropout, attention)
                                for _ in range(layers)])
        self.ln_f = nn.LayerNorm(hidden, eps=1e-5)

    def forward(self, input_ids):
        positions = torch.arange(0, input_ids.shape[-1], dtype=torch.long,
                                 device=input_ids.device).unsqueeze(0)
        x = self.drop(self.wte(input_ids) + self.wpe(positions))
        for block in self.h:
            x = block(x)
        return self.ln_f(x)


class GPT2LMHeadModel(nn.Module):
    def __init__(self, vocab=50257, hidden=768, layers=12, heads=12, max_positions=1024,
                 dropout=0.1, attention="eager"):
        super().__init__()
        self.transformer = GPT2Model(vocab, hidden, layers, heads, max_positions, dropout,
                                     attention)
        self.lm_head = nn.Linear(hidden, vocab, bias=False)
        self.lm_head.weight = self.transformer.wte.weight  # tied, as tie_word_embeddings

    def forward(self, input_ids):
        return self.lm_head(self.transformer(input_ids))


def gpt2_small(**kwargs):
    """GPT-2 small; keyword arguments as GPT2LMHeadModel (attention="sdpa" for the fused
    attention HF uses by default, layers=2 for a quick run)."""
    return GPT2LMHeadModel(**kwargs)
