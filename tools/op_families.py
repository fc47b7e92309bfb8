#!/usr/bin/env python3
# Time per op family of one training step, from the chrome://tracing file `pha bench model
# --trace FILE` writes (LibTorch's autograd profiler: one complete event per op call, nested).
# Each op's self time (its duration less its children's on the same thread) is summed by family:
# GEMM, attention, GSS convolution, norms and mixing, elementwise, loss head, optimizer,
# allocation and copies, autograd bookkeeping, other. docs/performance.md, "Where a small step goes".
#
#   tools/op_families.py TRACE.json [--top N]
import json, re, sys
from collections import defaultdict

FAMILIES = [
    ("optimizer", r"adamw|_foreach|optim"),
    ("attention", r"attention|attn|softmax|rope|scaled_dot"),
    ("GSS convolution", r"gss|fft|conv|_fft_|dss|selective|scan"),
    ("norms and mixing", r"norm|mix|rms"),
    ("loss head", r"log_softmax|nll_loss|cross_entropy|logsumexp"),
    ("elementwise", r"swiglu|gelu|silu"),
    ("GEMM", r"^aten::(mm|addmm|bmm|matmul|linear|baddbmm|addmv|mv|dot)$|MmBackward|AddmmBackward|BmmBackward|MulBackward0|LinearBackward"),
    ("allocation and copies", r"^aten::(empty|empty_like|empty_strided|zeros|zeros_like|ones|ones_like|full|resize_|copy_|clone|contiguous|to|_to_copy|fill_|zero_|new_empty|new_zeros|cat|stack|index|index_select|embedding|embedding_backward|embedding_dense_backward|slice_backward|select_backward|narrow|as_strided|view|reshape|_reshape_alias|transpose|t|permute|unsqueeze|squeeze|expand|split|chunk|unbind|detach|alias|slice|select)$"),
    ("autograd bookkeeping", r"Backward|autograd::|AccumulateGrad|torch::autograd"),
    ("elementwise", r"^aten::(add|add_|sub|sub_|mul|mul_|div|div_|sigmoid|silu|gelu|exp|log|sqrt|rsqrt|pow|neg|tanh|relu|where|clamp|clamp_|sum|mean|max|min|abs|square|softplus|cos|sin|addcmul_|addcdiv_|lerp_|sign|masked_fill|masked_fill_|maximum|minimum|reciprocal|exp_|mul_out|threshold_backward|silu_backward|sigmoid_backward|gelu_backward|tanh_backward)$"),
]

def family(name):
    low = name.lower()
    for fam, pat in FAMILIES:
        if re.search(pat, name if fam in ("GEMM", "allocation and copies", "elementwise") else low):
            return fam
    return "other"

def main():
    path = sys.argv[1]
    top = int(sys.argv[sys.argv.index("--top") + 1]) if "--top" in sys.argv else 12
    data = json.load(open(path))
    events = data["traceEvents"] if isinstance(data, dict) else data
    events = [e for e in events if e.get("ph") == "X" and "dur" in e]
    by_tid = defaultdict(list)
    for e in events:
        by_tid[e.get("tid")].append(e)
    self_time = defaultdict(float)
    total = 0.0
    for tid, evs in by_tid.items():
        evs.sort(key=lambda e: (e["ts"], -e["dur"]))
        stack = []  # (end, event index)
        child = [0.0] * len(evs)
        for i, e in enumerate(evs):
            while stack and e["ts"] >= stack[-1][0] - 1e-9:
                stack.pop()
            if stack:
                child[stack[-1][1]] += e["dur"]
            else:
                total += e["dur"]
            stack.append((e["ts"] + e["dur"], i))
        for i, e in enumerate(evs):
            self_time[e["name"]] += max(0.0, e["dur"] - child[i])
    fam = defaultdict(float)
    for name, t in self_time.items():
        fam[family(name)] += t
    s = sum(fam.values())
    print(f"{'op family':<24} {'ms':>9} {'share':>7}")
    for f, t in sorted(fam.items(), key=lambda x: -x[1]):
        print(f"{f:<24} {t/1000:9.2f} {t/s*100:6.1f}%")
    print(f"{'(all ops, self time)':<24} {s/1000:9.2f}")
    print(f"\ntop {top} ops by self time:")
    for name, t in sorted(self_time.items(), key=lambda x: -x[1])[:top]:
        print(f"  {name:<44} {t/1000:8.2f} ms  [{family(name)}]")

main()
