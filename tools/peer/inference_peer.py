#!/usr/bin/env python3
"""PyTorch eager peer of the PHA engine's tiny presets: incremental decoding and a training step.

The same models as the engine's presets pha-tiny, transformerpp-tiny and gss-only-tiny (shapes
and parameter counts equal to `pha model --preset <name>`; weights random: timing does not depend
on them), written the way a PyTorch user would, so the docs can state the engine's speed as a
ratio against PyTorch on the same machine. tools/peer/README.md has the method; run it through
tools/peer/run.sh (installs Debian's python3-torch when missing).

Modes:
  (default)  inference: per (model, prompt length L, batch B) time to first token (prefill +
             greedy argmax), median ms per decode step (steps 3..34 after the first token),
             end-to-end time for L in and --generate out, peak RSS. Each point runs in a fresh
             process (this script re-invoked) so its peak RSS is its own.
  --train    training step (forward, cross-entropy, backward, grad-norm clip 1, AdamW lr 1e-3)
             at T=512, B=8: median of --train-steps steps after --train-warmup, tokens/s.
  --check    incremental decode (prefill + steps, and steps from an empty state) equals the full
             forward: fp32 within 1e-4, fp64 within 1e-10 (max |a-b| / max |b|, the engine's
             tests/engine/model/test_decode.cpp measure); parameter counts equal the engine's.
"""
import argparse
import json
import math
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

# ---------------------------------------------------------------------------------------------
# Presets (engine/model/presets.cpp, variants.cpp: apply_variant_defaults, model_config.h)
# ---------------------------------------------------------------------------------------------

BYTE_VOCAB = 260  # kByteVocabSize: 256 bytes + 4 specials

# name: variant, V, d, layers, Hq, G, d_ff, GSS F, H, N, context (presets.cpp, CPU scale d = 128)
PRESETS = {
    "pha-tiny": ("pha", BYTE_VOCAB, 128, 4, 4, 2, 512, 256, 64, 64, 512),
    "transformerpp-tiny": ("transformerpp", BYTE_VOCAB, 128, 6, 4, 4, 368, 256, 64, 64, 512),
    "gss-only-tiny": ("gss-only", BYTE_VOCAB, 128, 5, 4, 2, 464, 256, 64, 64, 512),
}

# `pha model --preset <name>` (build/default/app/cli/pha, 2026-12): total parameters. --check
# also asks the binary when it is there and compares per layer and branch.
ENGINE_PARAMS = {"pha-tiny": 1286172, "transformerpp-tiny": 1276032, "gss-only-tiny": 1277076}

REPO = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
ENGINE_BIN = os.path.join(REPO, "build", "default", "app", "cli", "pha")


class Cfg:
    """The fields of ModelConfig the three presets use, with the variant defaults applied."""

    def __init__(self, name):
        variant, V, d, L, Hq, G, d_ff, F_, H, N, context = PRESETS[name]
        self.name, self.variant = name, variant
        self.V, self.d, self.n_layers, self.context = V, d, L, context
        self.Hq, self.G, self.hd = Hq, G, d // Hq
        self.F, self.H, self.N = F_, H, N
        self.d_ff = d_ff
        self.rope_theta = 10000.0
        self.scale_init = math.log(10.0)
        self.scale_max = math.log(100.0)
        self.norm_eps = 1e-6
        llama = variant == "transformerpp"
        # apply_variant_defaults: transformerpp is Llama-style; the others keep ModelConfig's defaults
        self.pre_norm = llama                      # norm_placement "pre" vs "post" (DeepNorm)
        self.rmsnorm = llama                       # model.norm: rmsnorm vs layernorm
        self.softmax_attn = llama                  # attention.kind softmax vs cosine
        self.attn_bias = False                     # bias only for gpt2
        self.swiglu = llama                        # ffn.kind swiglu vs gelu
        self.ffn_bias = not llama
        aux_ratio = 0.0 if llama else 0.25
        self.d_aux = int(math.floor(aux_ratio * d_ff + 0.5))  # std::lround
        self.branch_norm_all = not llama           # branch_norm "all" vs "mixed"
        self.embed_norm = not llama                # embed_scale "norm" vs "none"
        deepnorm = not llama
        self.alpha = (2.0 * L) ** 0.25 if deepnorm else 1.0
        self.beta = (8.0 * L) ** -0.25 if deepnorm else 1.0
        # expand_variant: one entry per layer, each a list of sublayers, each a list of branches
        block = {"pha": [["gss", "attn", "ffn"]],
                 "transformerpp": [["attn"], ["ffn"]],
                 "gss-only": [["gss"], ["ffn"]]}[variant]
        self.layers = [block for _ in range(L)]


# ---------------------------------------------------------------------------------------------
# Modules (engine/nn/*.cpp). Parameter names follow the engine's (layers.<l>.sub.<s>.gss.w_uv...)
# ---------------------------------------------------------------------------------------------


class RMSNorm(nn.Module):
    def __init__(self, dim, eps):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


def dss_terms(lre, lim, cre, cim):
    """exp(Lambda) (N) and C' (H, N), real and imaginary parts (kernels/gss_conv: dss_terms)."""
    a = -torch.exp(lre)
    b = torch.exp(lim)
    ea = torch.exp(a)
    decay_re, decay_im = ea * torch.cos(b), ea * torch.sin(b)
    x, y = decay_re - 1.0, decay_im
    inv_den = torch.reciprocal(a * a + b * b)
    w_re = (x * a + y * b) * inv_den
    w_im = (y * a - x * b) * inv_den
    return decay_re, decay_im, cre * w_re - cim * w_im, cre * w_im + cim * w_re


def dss_power_basis(lre, lim, T):
    """[Re; Im] exp(Lambda t), t = 0..T-1, as (2N, T) in lre's dtype; evaluated in fp64 (angles
    reach 1e5 rad at long T), differentiable w.r.t. lre and lim through the fp64 ops."""
    t = torch.arange(T, dtype=torch.float64)
    a = (-torch.exp(lre.to(torch.float64))).unsqueeze(1)
    b = torch.exp(lim.to(torch.float64)).unsqueeze(1)
    mag = torch.exp(a * t)
    ang = b * t
    return torch.cat([mag * torch.cos(ang), mag * torch.sin(ang)], 0).to(lre.dtype)


class GssBranch(nn.Module):
    """u, v = split(gelu(w_uv x)); z = LayerNorm(v); y = DSS(z) (FFT conv); out = w_o(w_g(y) * u)."""

    def __init__(self, c):
        super().__init__()
        self.E, self.F, self.H, self.N = c.d, c.F, c.H, c.N
        self.w_uv = nn.Linear(c.d, c.F + c.H, bias=False)
        self.w_g = nn.Linear(c.H, c.F, bias=False)
        self.w_o = nn.Linear(c.F, c.d, bias=True)
        self.inner_norm = nn.LayerNorm(c.H, eps=1e-5)
        self.lre = nn.Parameter(torch.randn(c.N))
        self.lim = nn.Parameter(torch.randn(c.N))
        self.cre = nn.Parameter(torch.randn(c.H, c.N))
        self.cim = nn.Parameter(torch.randn(c.H, c.N))
        self.d = nn.Parameter(torch.randn(c.H))

    def project(self, x):
        u, v = F.gelu(self.w_uv(x)).split([self.F, self.H], dim=-1)
        return u, self.inner_norm(v)  # (B, T, F), z (B, T, H)

    def output(self, y, u):
        return self.w_o(self.w_g(y) * u)

    def conv(self, z, basis, terms):
        """y = causal_conv(z, K) + D z by FFT with n = 2T; K = [Re C', -Im C'] basis (H, T)."""
        T = z.size(1)
        K = torch.cat([terms[2], -terms[3]], 1) @ basis                    # (H, T)
        n = 2 * T
        zf = torch.fft.rfft(z, n=n, dim=1)                                 # (B, T+1, H)
        kf = torch.fft.rfft(K, n=n, dim=1).t()                             # (T+1, H)
        y = torch.fft.irfft(zf * kf, n=n, dim=1)[:, :T]                    # (B, T, H)
        return y + z * self.d

    def forward(self, x):
        u, z = self.project(x)
        basis = dss_power_basis(self.lre, self.lim, z.size(1))
        return self.output(self.conv(z, basis, dss_terms(self.lre, self.lim, self.cre, self.cim)), u)

    def prefill(self, x, st):
        u, z = self.project(x)
        T = z.size(1)
        terms = dss_terms(self.lre, self.lim, self.cre, self.cim)
        basis = dss_power_basis(self.lre, self.lim, T)                      # (2N, T), once per layer
        y = self.conv(z, basis, terms)
        # s_{T-1}[b,h,n] = sum_t z[b,t,h] exp(Lambda_n (T-1-t)): one GEMM with the reversed powers
        s = torch.matmul(z.transpose(1, 2), basis.flip(1).t())            # (B, H, 2N)
        st["s_re"] = s[..., : self.N].contiguous()
        st["s_im"] = s[..., self.N:].contiguous()
        st["terms"] = terms  # exp(Lambda) and C' for the steps (the weights do not change while decoding)
        return self.output(y, u)

    def step(self, x, st):
        u, z = self.project(x)
        z = z[:, 0]                                                          # (B, H)
        if st.get("terms") is None:
            st["terms"] = dss_terms(self.lre, self.lim, self.cre, self.cim)
        dre, dim, c_re, c_im = st["terms"]
        s_re, s_im = st.get("s_re"), st.get("s_im")
        zi = z.unsqueeze(2)
        if s_re is None:  # token by token from an empty state
            n_re, n_im = zi.expand(-1, -1, self.N).contiguous(), torch.zeros(z.size(0), self.H, self.N, dtype=z.dtype)
        else:
            n_re = dre * s_re - dim * s_im + zi                                # (B, H, N)
            n_im = dre * s_im + dim * s_re
        y = (n_re * c_re - n_im * c_im).sum(2) + self.d * z                  # (B, H)
        st["s_re"], st["s_im"] = n_re, n_im
        return self.output(y.unsqueeze(1), u)


_MASK = {}


def causal_mask(T, rep=1):
    """(rep T, T) bool, True above the diagonal of each of the rep stacked (T, T) blocks (row
    r T + i is query position i); the last size kept (every layer of a call reuses it)."""
    m = _MASK.get((T, rep))
    if m is None:
        _MASK.clear()
        m = _MASK[(T, rep)] = torch.ones(T, T, dtype=torch.bool).triu_(1).repeat(rep, 1)
    return m


def apply_rope(x, cos, sin):
    """x (B, T, heads, hd), half-split pairs (channel i with i + hd/2); cos, sin (T, hd/2)."""
    c, s = cos[None, :, None, :], sin[None, :, None, :]
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat([x1 * c - x2 * s, x2 * c + x1 * s], dim=-1)


class AttentionBranch(nn.Module):
    """GQA: w_qkv d -> (Hq + 2G) hd (rows Q, K, V); RoPE; cosine (unit q, k, per-head learnable
    log-scale, clamp ln 100) or softmax (q.k / sqrt(hd)) logits; causal softmax; w_o."""

    def __init__(self, c, attn_block=0):
        super().__init__()
        self.Hq, self.G, self.hd = c.Hq, c.G, c.hd
        self.rep = c.Hq // c.G
        self.softmax_attn = c.softmax_attn
        self.scale_max = c.scale_max
        self.attn_block = attn_block  # > 0: no-grad prefill in query blocks (no T x T matrix at once)
        self.w_qkv = nn.Linear(c.d, (c.Hq + 2 * c.G) * c.hd, bias=c.attn_bias)
        self.w_o = nn.Linear(c.Hq * c.hd, c.d, bias=c.attn_bias)
        if not self.softmax_attn:
            self.log_scale = nn.Parameter(torch.full((c.Hq,), c.scale_init))

    def qkv(self, x, cos, sin):
        B, T, _ = x.shape
        # split, not slices: its backward is one cat instead of zero-filled full-size copies
        q, k, v = self.w_qkv(x).view(B, T, self.Hq + 2 * self.G, self.hd).split([self.Hq, self.G, self.G], dim=2)
        q = apply_rope(q, cos, sin)
        k = apply_rope(k, cos, sin)
        if self.softmax_attn:
            q = q * (1.0 / math.sqrt(self.hd))
        else:
            scale = torch.exp(torch.clamp_max(self.log_scale, self.scale_max)).view(1, 1, -1, 1)
            q = q * (torch.rsqrt(q.pow(2).sum(-1, keepdim=True).clamp_min(1e-24)) * scale)
            k = k * torch.rsqrt(k.pow(2).sum(-1, keepdim=True).clamp_min(1e-24))
        # head-major: q (B, Hq, T, hd); k, v (B, G, T, hd)
        return q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)

    def out(self, o):  # o (B, G, rep * T, hd), query head h = g * rep + r -> (B, T, d)
        B, T = o.size(0), o.size(2) // self.rep
        return self.w_o(o.reshape(B, self.Hq, T, self.hd).transpose(1, 2).reshape(B, T, self.Hq * self.hd))

    def attend(self, q, k, v):
        """Causal attention, S == T. The rep query heads of a KV group share one GEMM against its
        keys: q (B, G, rep*T, hd) x k^T (B, G, hd, T); scores (B, G, rep*T, T) materialised (with
        grad, i.e. training, always; without, when T <= attn_block or attn_block is 0)."""
        B, _, T, hd = q.shape
        qg = q.reshape(B, self.G, self.rep * T, hd)
        if self.attn_block > 0 and not torch.is_grad_enabled() and T > self.attn_block:
            return self.attend_blocked(qg, k, v, T)
        scores = torch.matmul(qg, k.transpose(-1, -2))                    # (B, G, rep*T, T)
        # in place on the GEMM's own output (not a view of it: autograd would copy the whole base)
        p = scores.masked_fill_(causal_mask(T, self.rep), float("-inf")).softmax(-1)
        return torch.matmul(p, v)                                           # (B, G, rep*T, hd)

    def attend_blocked(self, qg, k, v, T):
        B, hd, bq = qg.size(0), qg.size(-1), self.attn_block
        q5 = qg.view(B, self.G, self.rep, T, hd)
        o = torch.empty(B, self.G, self.rep, T, hd, dtype=qg.dtype)
        for i0 in range(0, T, bq):
            i1 = min(T, i0 + bq)
            qb = q5[:, :, :, i0:i1].reshape(B, self.G, self.rep * (i1 - i0), hd)
            s = torch.matmul(qb, k[:, :, :i1].transpose(-1, -2)).view(B, self.G, self.rep, i1 - i0, i1)
            mask = torch.ones(i1 - i0, i1, dtype=torch.bool).triu_(i0 + 1)
            p = s.masked_fill_(mask, float("-inf")).softmax(-1)
            o[:, :, :, i0:i1] = torch.matmul(p.view(B, self.G, self.rep * (i1 - i0), i1), v[:, :, :i1]).view(
                B, self.G, self.rep, i1 - i0, hd)
        return o.view(B, self.G, self.rep * T, hd)

    def forward(self, x, rope):
        q, k, v = self.qkv(x, *rope)
        return self.out(self.attend(q, k, v))

    def prefill(self, x, st, rope):
        q, k, v = self.qkv(x, *rope)
        T = x.size(1)
        self.ensure_cache(st, x.size(0), T, x.dtype)
        st["k"][:, :, :T] = k
        st["v"][:, :, :T] = v
        st["len"] = T
        return self.out(self.attend(q, k, v))

    def ensure_cache(self, st, B, need, dtype):
        """KV cache (B, G, capacity, hd): allocated once at the reserve (prompt + generation), then
        grown by doubling (engine: KvCache::append)."""
        cap = st["k"].size(2) if st.get("k") is not None else 0
        if need <= cap:
            return
        reserve = st.get("reserve", 0)
        new_cap = reserve if (reserve >= need and cap < reserve) else max(need, 2 * cap, 16)
        nk = torch.empty(B, self.G, new_cap, self.hd, dtype=dtype)
        nv = torch.empty(B, self.G, new_cap, self.hd, dtype=dtype)
        n = st.get("len", 0)
        if n:
            nk[:, :, :n] = st["k"][:, :, :n]
            nv[:, :, :n] = st["v"][:, :, :n]
        st["k"], st["v"] = nk, nv

    def step(self, x, st, rope):
        q, k, v = self.qkv(x, *rope)                                        # q (B, Hq, 1, hd)
        B, n = x.size(0), st.get("len", 0)
        self.ensure_cache(st, B, n + 1, x.dtype)
        st["k"][:, :, n: n + 1] = k
        st["v"][:, :, n: n + 1] = v
        n += 1
        st["len"] = n
        keys, vals = st["k"][:, :, :n], st["v"][:, :, :n]                 # (B, G, n, hd) views
        qg = q.reshape(B, self.G, self.rep, self.hd)
        p = torch.matmul(qg, keys.transpose(-1, -2)).softmax(-1)            # (B, G, rep, n)
        return self.out(torch.matmul(p, vals))                              # (B, G, rep, hd)


class DualFfn(nn.Module):
    """gelu: down(gelu(up x)), up d -> d_ff + d_aux (main and aux FFN fused), one output bias;
    swiglu: up d -> 2 W (gate, value), down(silu(gate) * value)."""

    def __init__(self, c):
        super().__init__()
        self.swiglu = c.swiglu
        W = c.d_ff + c.d_aux
        self.up = nn.Linear(c.d, 2 * W if c.swiglu else W, bias=c.ffn_bias)
        self.down = nn.Linear(W, c.d, bias=c.ffn_bias)

    def forward(self, x):
        if self.swiglu:
            g, v = self.up(x).chunk(2, dim=-1)
            return self.down(F.silu(g) * v)
        return self.down(F.gelu(self.up(x)))


class Mixer(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.p = nn.Parameter(torch.zeros(n))

    def weights(self):
        sp = F.softplus(self.p)
        return sp / sp.sum()


class Sublayer(nn.Module):
    """post: x <- LayerNorm(alpha x + sum_b w_b RMSNorm_b(branch_b(x))) (one branch: no mixer);
    pre: x <- x + f(Norm(x)), the branch output entering raw (branch_norm "mixed")."""

    def __init__(self, c, branches, attn_block=0):
        super().__init__()
        self.branches = list(branches)
        self.pre = c.pre_norm
        self.normed = len(branches) > 1 or c.branch_norm_all
        self.alpha = c.alpha
        for b in branches:
            if b == "gss":
                self.gss = GssBranch(c)
            elif b == "attn":
                self.attn = AttentionBranch(c, attn_block)
            else:
                self.ffn = DualFfn(c)
            if self.normed:
                setattr(self, "norm_" + b, RMSNorm(c.d, c.norm_eps))
        self.mixer = Mixer(len(branches)) if len(branches) > 1 else None
        if self.pre:
            self.norm = RMSNorm(c.d, c.norm_eps) if c.rmsnorm else nn.LayerNorm(c.d, eps=c.norm_eps)
        else:
            self.post_norm = nn.LayerNorm(c.d, eps=1e-5)

    def run(self, x, mode, st, rope, mix=None):
        h = self.norm(x) if self.pre else x
        f = None
        w = mix if mix is not None else (self.mixer.weights() if self.mixer is not None else None)
        for i, b in enumerate(self.branches):
            if b == "gss":
                y = self.gss(h) if mode == "forward" else getattr(self.gss, mode)(h, st)
            elif b == "attn":
                y = self.attn(h, rope) if mode == "forward" else getattr(self.attn, mode)(h, st, rope)
            else:
                y = self.ffn(h)
            if self.normed:
                y = getattr(self, "norm_" + b)(y)
            if w is not None:
                y = y * w[i]
            f = y if f is None else f + y
        if self.pre:
            return x + f
        return self.post_norm(torch.add(f, x, alpha=self.alpha))


class Block(nn.Module):
    def __init__(self, c, spec, attn_block=0):
        super().__init__()
        self.sub = nn.ModuleList([Sublayer(c, s, attn_block) for s in spec])


class PeerModel(nn.Module):
    """embed -> blocks -> final norm -> tied head (logits = h E^T)."""

    def __init__(self, c, attn_block=0):
        super().__init__()
        self.c = c
        self.embed = nn.Embedding(c.V, c.d)
        self.layers = nn.ModuleList([Block(c, spec, attn_block) for spec in c.layers])
        self.final_norm = RMSNorm(c.d, c.norm_eps) if c.rmsnorm else nn.LayerNorm(
            c.d, eps=c.norm_eps if c.pre_norm else 1e-5)
        self.subs = [s for blk in self.layers for s in blk.sub]
        self._cos = self._sin = None
        self.reset_parameters()

    # --- initialisation (engine/nn/deepnorm_init.cpp; docs/model.md "DeepNorm", "Norm placement")
    def reset_parameters(self):
        c = self.c

        def xavier(w, rows, cols, gain):
            r0, r1 = rows
            c0, c1 = cols
            std = gain * math.sqrt(2.0 / ((r1 - r0) + (c1 - c0)))
            with torch.no_grad():
                w[r0:r1, c0:c1].normal_(0.0, std)

        with torch.no_grad():
            for n, p in self.named_parameters():
                if n.endswith(".bias") or n.endswith("mixer.p"):
                    p.zero_()
                elif "norm" in n:
                    p.fill_(1.0)
            if c.pre_norm:  # GPT-2 init: N(0, 0.02^2); residual outputs 0.02 / sqrt(S)
                S = len(self.subs)
                self.embed.weight.normal_(0.0, 0.02)
                for s in self.subs:
                    for mod in (getattr(s, "attn", None), getattr(s, "ffn", None)):
                        if mod is None:
                            continue
                        for lin in (mod.w_qkv, mod.w_o) if hasattr(mod, "w_qkv") else (mod.up, mod.down):
                            out = lin is getattr(mod, "w_o", None) or lin is getattr(mod, "down", None)
                            lin.weight.normal_(0.0, 0.02 / math.sqrt(S) if out else 0.02)
                return
            self.embed.weight.normal_(0.0, 1.0 / c.d)
            beta, E = c.beta, c.d
            for s in self.subs:
                if hasattr(s, "gss"):
                    gs = s.gss
                    xavier(gs.w_uv.weight, (0, c.F), (0, E), beta)
                    xavier(gs.w_uv.weight, (c.F, c.F + c.H), (0, E), beta)
                    xavier(gs.w_g.weight, (0, c.F), (0, c.H), beta)
                    xavier(gs.w_o.weight, (0, E), (0, c.F), beta)
                if hasattr(s, "attn"):
                    a, q, kv = s.attn, c.Hq * c.hd, c.G * c.hd
                    xavier(a.w_qkv.weight, (0, q), (0, E), 1.0)
                    xavier(a.w_qkv.weight, (q, q + kv), (0, E), 1.0)
                    xavier(a.w_qkv.weight, (q + kv, q + 2 * kv), (0, E), beta)
                    xavier(a.w_o.weight, (0, E), (0, q), beta)
                if hasattr(s, "ffn"):
                    f = s.ffn
                    xavier(f.up.weight, (0, c.d_ff), (0, E), beta)
                    xavier(f.down.weight, (0, E), (0, c.d_ff), beta)
                    if c.d_aux:
                        xavier(f.up.weight, (c.d_ff, c.d_ff + c.d_aux), (0, E), beta)
                        xavier(f.down.weight, (0, E), (c.d_ff, c.d_ff + c.d_aux), beta)

    def num_parameters(self):
        return sum(p.numel() for p in self.parameters())

    # --- pieces
    def rope(self, pos0, T, dtype):
        """cos, sin (T, hd/2) for positions [pos0, pos0 + T): one table for the model, computed in
        fp64 once for a capacity (grown by doubling) and sliced (Llama's precomputed freqs)."""
        need = pos0 + T
        if self._cos is None or self._cos.size(0) < need or self._cos.dtype != dtype:
            cap = max(need, 2 * (self._cos.size(0) if self._cos is not None else 0), 1024)
            hd = self.c.hd
            theta = torch.pow(self.c.rope_theta, torch.arange(hd // 2, dtype=torch.float64) * (-2.0 / hd))
            ang = torch.outer(torch.arange(cap, dtype=torch.float64), theta)
            self._cos, self._sin = torch.cos(ang).to(dtype), torch.sin(ang).to(dtype)
        return self._cos[pos0:need], self._sin[pos0:need]

    def embed_tokens(self, tokens):
        e = self.embed(tokens)
        if self.c.embed_norm:  # embed_scale "norm": RMS 1 per element, no gain
            e = e * torch.rsqrt(e.pow(2).mean(-1, keepdim=True) + self.c.norm_eps)
        return e

    def logits(self, h):
        return F.linear(self.final_norm(h), self.embed.weight)

    # --- full forward (training)
    def forward(self, tokens):
        h = self.embed_tokens(tokens)
        rope = self.rope(0, tokens.size(1), h.dtype)
        for s in self.subs:
            h = s.run(h, "forward", None, rope)
        return self.logits(h)

    # --- incremental decoding
    def new_state(self, batch, reserve=0):
        return {"batch": batch, "position": 0, "subs": [{"reserve": reserve} for _ in self.subs], "mix": None}

    def _mix(self, state):  # mixer weights, computed once per decode session
        if state["mix"] is None:
            state["mix"] = [s.mixer.weights() if s.mixer is not None else None for s in self.subs]
        return state["mix"]

    def prefill(self, tokens, state, last_only=True):
        assert state["position"] == 0 and state["batch"] == tokens.size(0)
        h = self.embed_tokens(tokens)
        T = tokens.size(1)
        rope = self.rope(0, T, h.dtype)
        for s, st, mix in zip(self.subs, state["subs"], self._mix(state)):
            h = s.run(h, "prefill", st, rope, mix)
        state["position"] = T
        if last_only:
            h = h[:, -1:]
        return self.logits(h)                                               # (B, T or 1, V)

    def step(self, tokens, state):
        h = self.embed_tokens(tokens.unsqueeze(1))                           # (B, 1, d)
        pos = state["position"]
        rope = self.rope(pos, 1, h.dtype)
        for s, st, mix in zip(self.subs, state["subs"], self._mix(state)):
            h = s.run(h, "step", st, rope, mix)
        state["position"] = pos + 1
        return self.logits(h)[:, 0]                                         # (B, V)


def state_bytes(state):
    kv = gss = 0
    for st in state["subs"]:
        for key in ("k", "v"):
            if st.get(key) is not None:
                kv += st[key].numel() * st[key].element_size()
        for key in ("s_re", "s_im"):
            if st.get(key) is not None:
                gss += st[key].numel() * st[key].element_size()
    return kv, gss


# ---------------------------------------------------------------------------------------------
# Measurement
# ---------------------------------------------------------------------------------------------


def peak_rss_bytes():
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    import resource
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def torch_version():
    return torch.__version__  # Debian's 1.13.1 build reports "1.13.0a0" here


_PACKAGE = []


def torch_package():
    """The Debian package's version ("python3-torch 1.13.1+dfsg-4"), or "" where dpkg is absent."""
    if not _PACKAGE:
        try:
            out = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "python3-torch"], capture_output=True,
                                 text=True, timeout=10).stdout.strip()
        except (OSError, subprocess.SubprocessError):
            out = ""
        _PACKAGE.append("python3-torch " + out if out else "")
    return _PACKAGE[0]


def build(name, seed, attn_block=256):
    torch.manual_seed(seed)
    return PeerModel(Cfg(name), attn_block)


def measure_inference(name, L, B, a):
    """One point, as engine/nn/decode_bench.cpp times it: warm-up on a short prompt, then a state
    reserved for L + generate, prefill (last-position logits, greedy argmax) = time to first
    token, then generate - 1 greedy steps, each timed; median of steps [warmup, warmup + timed)."""
    torch.set_num_threads(a.threads)
    with torch.no_grad():
        model = build(name, a.seed, a.attn_block)
        model.eval()
        V = model.c.V
        prompt = torch.randint(0, V, (B, L))
        warm = min(L, 64)
        s = model.new_state(B, warm + 2)
        nxt = model.prefill(prompt[:, :warm], s)[:, 0].argmax(-1)
        for _ in range(2):
            nxt = model.step(nxt, s).argmax(-1)
        del s

        state = model.new_state(B, L + a.generate)
        t0 = time.perf_counter()
        nxt = model.prefill(prompt, state)[:, 0].argmax(-1)                 # (B)
        ttft = time.perf_counter() - t0
        steps = []
        for _ in range(a.generate - 1):
            t0 = time.perf_counter()
            nxt = model.step(nxt, state).argmax(-1)
            steps.append(time.perf_counter() - t0)
        timed = steps[a.decode_warmup: a.decode_warmup + a.decode_timed]
        dec = statistics.median(timed)
        kv, gss = state_bytes(state)
        return {
            "model": name, "seq_len": L, "batch": B,
            "ttft_ms": ttft * 1e3,
            "prefill_tokens_per_s": B * L / ttft,
            "decode_ms_per_token": dec * 1e3,
            "decode_tokens_per_s": B / dec,
            "e2e_ms": (ttft + sum(steps)) * 1e3,
            "peak_rss_bytes": peak_rss_bytes(),
            "n_params": model.num_parameters(),
            "threads": a.threads,
            "torch_version": torch_version(),
            "torch_package": torch_package(),
            "generate": a.generate,
            "kv_cache_bytes": kv,
            "gss_state_bytes": gss,
            "attn_block": a.attn_block,
            "loadavg_1min": os.getloadavg()[0],  # the machine's load as the point ended (shared hosts)
        }


def decay_groups(model):
    """AdamW groups as the engine's ParamRole: weight decay on matrices and the embedding only."""
    decay, rest = [], []
    for n, p in model.named_parameters():
        matrix = p.dim() == 2 and not any(k in n for k in (".cre", ".cim", "norm"))
        (decay if matrix else rest).append(p)
    return [{"params": decay, "weight_decay": 0.1}, {"params": rest, "weight_decay": 0.0}]


def measure_train(name, T, B, a):
    torch.set_num_threads(a.threads)
    model = build(name, a.seed)
    model.train()
    opt = torch.optim.AdamW(decay_groups(model), lr=1e-3, betas=(0.9, 0.95), eps=1e-8,
                            foreach=a.foreach)
    data = torch.randint(0, model.c.V, (B, T + 1))
    x, y = data[:, :-1], data[:, 1:]
    times = []
    for i in range(a.train_warmup + a.train_steps):
        t0 = time.perf_counter()
        logits = model(x)
        loss = F.cross_entropy(logits.reshape(-1, logits.size(-1)), y.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        dt = time.perf_counter() - t0
        if i >= a.train_warmup:
            times.append(dt)
    med = statistics.median(times)
    return {"model": name, "phase": "train", "seq_len": T, "batch": B, "tokens_per_s": B * T / med,
            "n_params": model.num_parameters(), "median_step_s": med, "steps": a.train_steps,
            "warmup": a.train_warmup, "loss_last": float(loss), "peak_rss_bytes": peak_rss_bytes(),
            "threads": a.threads, "torch_version": torch_version(), "torch_package": torch_package(),
            "foreach": a.foreach, "loadavg_1min": os.getloadavg()[0]}


# ---------------------------------------------------------------------------------------------
# Correctness (--check)
# ---------------------------------------------------------------------------------------------


def rel_err(a, b):  # max |a - b| / max |b| (tests/engine/model/test_model_util.h)
    a, b = a.double(), b.double()
    return float((a - b).abs().max() / b.abs().max().clamp_min(1e-300))


def engine_counts(name):
    """Per layer {branch: params} and total from `pha model --json`, or None without the binary."""
    if not os.access(ENGINE_BIN, os.X_OK):
        return None
    try:
        out = subprocess.run([ENGINE_BIN, "model", "--preset", name, "--json"], capture_output=True, text=True,
                             timeout=60, check=True).stdout
        j = json.loads(out)
        return j["params"]["total"], [l["params"] for l in j["layers"]]
    except (subprocess.SubprocessError, ValueError, KeyError, OSError):
        return None


def peer_layer_counts(model):
    counts = []
    for blk in model.layers:
        c = {"gss": 0, "attn": 0, "ffn": 0, "norms": 0, "mixer": 0}
        for n, p in blk.named_parameters():
            key = next((b for b in ("gss", "attn", "ffn") if ("." + b + ".") in ("." + n)), None)
            if key is None:
                key = "mixer" if "mixer" in n else "norms"
            c[key] += p.numel()
        counts.append(c)
    return counts


def decode_errors(model, tokens, n_prefill):
    """(prefill n_prefill + steps) vs full forward, and (steps from an empty state) vs full."""
    with torch.no_grad():
        B, T = tokens.shape
        full = model(tokens)
        st = model.new_state(B, T)
        outs = [model.prefill(tokens[:, :n_prefill], st, last_only=False)]
        for t in range(n_prefill, T):
            outs.append(model.step(tokens[:, t], st).unsqueeze(1))
        e_prefill = rel_err(torch.cat(outs, 1), full)
        st = model.new_state(B)  # no reserve: the cache grows by doubling
        steps = [model.step(tokens[:, t], st).unsqueeze(1) for t in range(T)]
        e_steps = rel_err(torch.cat(steps, 1), full)
    return e_prefill, e_steps


def run_check(a):
    torch.set_num_threads(a.threads)
    ok = True
    print(f"torch {torch_version()} ({torch_package() or 'not from dpkg'}), {a.threads} thread(s)")
    print(f"{'model':<20} {'params (engine)':>16} {'params (peer)':>14}  per-layer branches")
    for name in a.models:
        model = build(name, a.seed)
        n = model.num_parameters()
        ref = ENGINE_PARAMS[name]
        live = engine_counts(name)
        layer_note = "engine binary absent: total only"
        if live is not None:
            ref = live[0]
            mine = peer_layer_counts(model)
            same = all(all(m[k] == e.get(k, 0) for k in m) for m, e in zip(mine, live[1])) and len(mine) == len(live[1])
            layer_note = "equal (gss, attn, ffn, norms, mixer per layer)" if same else f"DIFFER: {mine[0]} vs {live[1][0]}"
            ok &= same
        print(f"{name:<20} {ref:>16,} {n:>14,}  {layer_note}")
        ok &= n == ref
    print()
    print(f"{'model':<20} {'dtype':<8} {'case':<34} {'rel err':>10} {'limit':>8}")
    for name in a.models:
        for dtype, limit in ((torch.float32, 1e-4), (torch.float64, 1e-10)):
            model = build(name, a.seed).to(dtype)
            model.eval()
            g = torch.Generator().manual_seed(7)
            cases = [("B 2, T 20: prefill 8 + 12 steps", torch.randint(0, 260, (2, 20), generator=g), 8),
                     ("B 1, T 320: prefill 288 + 32 steps", torch.randint(0, 260, (1, 320), generator=g), 288)]
            for label, tokens, n_pre in cases:
                e_pre, e_steps = decode_errors(model, tokens, n_pre)
                for what, e in ((label, e_pre), (f"B {tokens.size(0)}, T {tokens.size(1)}: steps from empty", e_steps)):
                    good = e <= limit
                    ok &= good
                    print(f"{name:<20} {str(dtype).replace('torch.', ''):<8} {what:<34} {e:>10.2e} {limit:>8.0e}"
                          f"{'' if good else '  FAIL'}")
            if any("attn" in sub for spec in model.c.layers for sub in spec):
                # the query-blocked prefill (--attn-block) against one T x T matrix, all positions
                tokens = cases[1][1]
                with torch.no_grad():
                    full = build(name, a.seed, 0).to(dtype).eval().prefill(tokens, model.new_state(1), False)
                    blk = build(name, a.seed, 64).to(dtype).eval().prefill(tokens, model.new_state(1), False)
                e = rel_err(blk, full)
                good = e <= limit
                ok &= good
                print(f"{name:<20} {str(dtype).replace('torch.', ''):<8} {'B 1, T 320: prefill blocks 64 vs 1':<34} "
                      f"{e:>10.2e} {limit:>8.0e}{'' if good else '  FAIL'}")
    print("\ncheck:", "PASS" if ok else "FAIL")
    return 0 if ok else 1


# ---------------------------------------------------------------------------------------------
# Driver
# ---------------------------------------------------------------------------------------------


def child_args(a):
    return ["--threads", str(a.threads), "--seed", str(a.seed), "--generate", str(a.generate),
            "--decode-warmup", str(a.decode_warmup), "--decode-timed", str(a.decode_timed),
            "--attn-block", str(a.attn_block), "--train-steps", str(a.train_steps),
            "--train-warmup", str(a.train_warmup)] + ([] if a.foreach else ["--no-foreach"])


def run_point(kind, spec, a):
    """One point in a fresh process (its own peak RSS), or in this one with --in-process."""
    if a.in_process:
        name, L, B = spec.split(":")
        fn = measure_train if kind == "train" else measure_inference
        return fn(name, int(L), int(B), a)
    cmd = [sys.executable, os.path.abspath(__file__), "--" + kind + "-point", spec] + child_args(a)
    p = subprocess.run(cmd, capture_output=True, text=True)
    for line in p.stdout.splitlines():
        if line.startswith("POINT_JSON "):
            return json.loads(line[len("POINT_JSON "):])
    sys.stderr.write(p.stdout + p.stderr)
    raise SystemExit(f"inference_peer: point {spec} failed (exit {p.returncode})")


def combine(runs):
    """The median over repeated runs of one point (fresh processes): every timing and the peak RSS
    its median, the derived rates recomputed from the medians."""
    if len(runs) == 1:
        return runs[0]
    r = dict(runs[0])
    for k in ("ttft_ms", "decode_ms_per_token", "e2e_ms", "median_step_s", "peak_rss_bytes", "loadavg_1min"):
        if k in r:
            r[k] = statistics.median(x[k] for x in runs)
    if "ttft_ms" in r:
        r["prefill_tokens_per_s"] = r["batch"] * r["seq_len"] / (r["ttft_ms"] / 1e3)
        r["decode_tokens_per_s"] = r["batch"] / (r["decode_ms_per_token"] / 1e3)
        r["ttft_ms_runs"] = [x["ttft_ms"] for x in runs]
        r["decode_ms_per_token_runs"] = [x["decode_ms_per_token"] for x in runs]
    else:
        r["tokens_per_s"] = r["batch"] * r["seq_len"] / r["median_step_s"]
        r["tokens_per_s_runs"] = [x["tokens_per_s"] for x in runs]
    r["peak_rss_bytes"] = int(r["peak_rss_bytes"])
    r["repeats"] = len(runs)
    return r


def mb(x):
    return x / 2 ** 20


def ints(s):
    return [int(v) for v in s.split(",") if v]


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--models", default="pha-tiny,transformerpp-tiny,gss-only-tiny",
                    help="comma-separated presets (default: all three)")
    ap.add_argument("--seq-lens", default="256,1024,4096,8192", help="prompt lengths L (inference)")
    ap.add_argument("--batches", default="1", help="batch sizes B (inference)")
    ap.add_argument("--generate", type=int, default=256, help="tokens generated per point (first from the prefill)")
    ap.add_argument("--decode-warmup", type=int, default=2, help="untimed decode steps after the first token")
    ap.add_argument("--decode-timed", type=int, default=32, help="decode steps whose median is ms per token")
    ap.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1: the best on 2 cores)")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--attn-block", type=int, default=256,
                    help="no-grad prefill attention in query blocks of this many rows (default 256, the fastest "
                         "measured; 0: one T x T score matrix per KV group, the textbook form)")
    ap.add_argument("--train", action="store_true", help="time the training step instead of inference")
    ap.add_argument("--train-seq-len", type=int, default=512)
    ap.add_argument("--train-batch", type=int, default=8)
    ap.add_argument("--train-steps", type=int, default=20, help="timed training steps (median)")
    ap.add_argument("--train-warmup", type=int, default=3)
    ap.add_argument("--no-foreach", dest="foreach", action="store_false",
                    help="AdamW per-parameter loop instead of foreach (multi-tensor) kernels")
    ap.add_argument("--check", action="store_true", help="decode == full forward, parameter counts")
    ap.add_argument("--json", metavar="FILE", help="write the points as a JSON array")
    ap.add_argument("--repeats", type=int, default=1,
                    help="measure each point this many times (fresh processes) and report the medians")
    ap.add_argument("--in-process", action="store_true", help="measure every point in this process")
    ap.add_argument("--inference-point", help=argparse.SUPPRESS)
    ap.add_argument("--train-point", help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    a.models = [m for m in a.models.split(",") if m]
    for m in a.models:
        if m not in PRESETS:
            ap.error(f"unknown model {m!r}; allowed: {', '.join(PRESETS)}")
    if a.decode_warmup + a.decode_timed > a.generate - 1:
        ap.error("--decode-warmup + --decode-timed must fit in --generate - 1")

    for kind in ("inference", "train"):
        spec = getattr(a, kind + "_point")
        if spec:
            name, L, B = spec.split(":")
            fn = measure_train if kind == "train" else measure_inference
            print("POINT_JSON " + json.dumps(fn(name, int(L), int(B), a)), flush=True)
            return 0

    if a.check:
        return run_check(a)

    points = []
    print(f"# PyTorch eager peer: torch {torch_version()} ({torch_package() or 'not from dpkg'}), {a.threads} intra-op thread(s), "
          f"{os.cpu_count()} CPUs, {'one process per point' if not a.in_process else 'in process'}")
    if a.train:
        print(f"{'model':<20} {'T':>5} {'B':>3} {'step s':>8} {'tokens/s':>10} {'peak RSS MB':>12} {'params':>11} {'load':>5}")
        for name in a.models:
            r = combine([run_point("train", f"{name}:{a.train_seq_len}:{a.train_batch}", a) for _ in range(a.repeats)])
            points.append(r)
            print(f"{name:<20} {r['seq_len']:>5} {r['batch']:>3} {r['median_step_s']:>8.3f} {r['tokens_per_s']:>10,.0f} "
                  f"{mb(r['peak_rss_bytes']):>12,.0f} {r['n_params']:>11,} {r['loadavg_1min']:>5.2f}", flush=True)
    else:
        print(f"{'model':<20} {'L':>6} {'B':>3} {'TTFT ms':>10} {'prefill tok/s':>14} {'decode ms/tok':>14} "
              f"{'decode tok/s':>13} {'e2e ms':>10} {'peak RSS MB':>12} {'params':>11} {'load':>5}")
        for name in a.models:
            for L in ints(a.seq_lens):
                for B in ints(a.batches):
                    r = combine([run_point("inference", f"{name}:{L}:{B}", a) for _ in range(a.repeats)])
                    points.append(r)
                    print(f"{name:<20} {L:>6} {B:>3} {r['ttft_ms']:>10.1f} {r['prefill_tokens_per_s']:>14,.0f} "
                          f"{r['decode_ms_per_token']:>14.3f} {r['decode_tokens_per_s']:>13,.1f} {r['e2e_ms']:>10.0f} "
                          f"{mb(r['peak_rss_bytes']):>12,.0f} {r['n_params']:>11,} {r['loadavg_1min']:>5.2f}", flush=True)
    if a.json:
        with open(a.json, "w") as f:
            json.dump(points, f, indent=1)
        print(f"# wrote {len(points)} point(s) to {a.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
