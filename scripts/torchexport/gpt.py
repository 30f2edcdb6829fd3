"""Decoder-only transformers built from torch.nn modules (no downloads), in
the shape of GPT-2 (Radford et al. 2019): learned token and position
embeddings, pre-LayerNorm blocks of causal self-attention and a GELU MLP
with dropout 0.1, a final LayerNorm and an LM head tied to the token
embedding.  The configurations are GPT-2 small's (12 layers, width 768, 12
heads) and GPT-2 XL's depth and width (48 layers, 1600, 25 heads), with
GPT-2's vocabulary (50257) and context (1024)."""
import math
from collections import namedtuple

import torch
import torch.nn as nn
import torch.nn.functional as F

Config = namedtuple("Config", "layers width heads vocab seq dropout")

CONFIGS = {
    "gpt2_small": Config(12, 768, 12, 50257, 1024, 0.1),
    "gpt2_48l": Config(48, 1600, 25, 50257, 1024, 0.1),
}


def describe(cfg):
    return ("decoder-only transformer in GPT-2's shape, %d layers, width %d, %d heads, "
            "vocabulary %d, context %d, dropout %g (torch.nn modules, torch %s)"
            % (cfg.layers, cfg.width, cfg.heads, cfg.vocab, cfg.seq, cfg.dropout,
               torch.__version__))


class CausalSelfAttention(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.heads = cfg.heads
        self.qkv = nn.Linear(cfg.width, 3 * cfg.width)
        self.proj = nn.Linear(cfg.width, cfg.width)
        self.attn_drop = nn.Dropout(cfg.dropout)
        self.resid_drop = nn.Dropout(cfg.dropout)
        mask = torch.ones(cfg.seq, cfg.seq, dtype=torch.bool).tril()
        self.register_buffer("mask", mask.view(1, 1, cfg.seq, cfg.seq), persistent=False)

    def forward(self, x):
        b, t, c = x.shape
        q, k, v = self.qkv(x).split(c, dim=2)
        h = self.heads
        q = q.view(b, t, h, c // h).transpose(1, 2)
        k = k.view(b, t, h, c // h).transpose(1, 2)
        v = v.view(b, t, h, c // h).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(c // h))
        att = att.masked_fill(~self.mask[:, :, :t, :t], float("-inf"))
        att = self.attn_drop(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, c)
        return self.resid_drop(self.proj(y))


class Block(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.ln1 = nn.LayerNorm(cfg.width)
        self.attn = CausalSelfAttention(cfg)
        self.ln2 = nn.LayerNorm(cfg.width)
        self.fc = nn.Linear(cfg.width, 4 * cfg.width)
        self.act = nn.GELU()
        self.fc_proj = nn.Linear(4 * cfg.width, cfg.width)
        self.drop = nn.Dropout(cfg.dropout)

    def forward(self, x):
        x = x + self.attn(self.ln1(x))
        return x + self.drop(self.fc_proj(self.act(self.fc(self.ln2(x)))))


class GPT(nn.Module):
    def __init__(self, cfg):
        super().__init__()
        self.tok = nn.Embedding(cfg.vocab, cfg.width)
        self.pos = nn.Embedding(cfg.seq, cfg.width)
        self.drop = nn.Dropout(cfg.dropout)
        self.blocks = nn.ModuleList(Block(cfg) for _ in range(cfg.layers))
        self.ln_f = nn.LayerNorm(cfg.width)
        self.head = nn.Linear(cfg.width, cfg.vocab, bias=False)
        self.head.weight = self.tok.weight  # tied, as in GPT-2
        pos = torch.arange(cfg.seq)
        self.register_buffer("positions", pos, persistent=False)

    def forward(self, tokens):
        t = tokens.shape[1]
        x = self.drop(self.tok(tokens) + self.pos(self.positions[:t]))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln_f(x))
