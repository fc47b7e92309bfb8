#!/usr/bin/env python3
"""The engine against the PyTorch eager peer, in one session on one machine (docs/performance.md,
"Inference"): `pha bench inference` and `inference_peer.py` alternate over --repeats rounds at the
same (model, L, batch 1) points, then `pha bench model` (fp32, the peer is fp32 only) and the
peer's `--train` alternate for the training step. Prints the medians of each side over the
rounds and their ratios (engine / peer for throughput: above 1 the engine is ahead), with the
host's load average per round. Only the standard library: runs under any python3.

  tools/peer/compare.py --pha build/default/app/cli/pha --repeats 3 --seq-lens 1024,4096,8192
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run_json(cmd, path=None):
    out = subprocess.run(cmd, check=True, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True).stdout
    if path:
        with open(path) as f:
            return json.load(f)
    return json.loads(out)


def load():
    return os.getloadavg()[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pha", default="build/default/app/cli/pha")
    ap.add_argument("--models", default="pha-tiny,transformerpp-tiny,gss-only-tiny")
    ap.add_argument("--train-models", default="pha-tiny,transformerpp-tiny")
    ap.add_argument("--seq-lens", default="1024,4096,8192")
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--no-train", action="store_true")
    ap.add_argument("--json", help="write every measurement and the ratios here")
    a = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="pha-peer-")
    eng, peer, loads = {}, {}, []
    for r in range(a.repeats):
        e_path, p_path = os.path.join(tmp, f"e{r}.json"), os.path.join(tmp, f"p{r}.json")
        subprocess.run([a.pha, "bench", "inference", "--models", a.models, "--seq-lens", a.seq_lens, "--batches", "1",
                        "--json", e_path], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        subprocess.run([os.path.join(HERE, "run.sh"), "--models", a.models, "--seq-lens", a.seq_lens, "--batches", "1",
                        "--json", p_path], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        loads.append(load())
        for p in json.load(open(e_path)):
            if p.get("error"):
                continue
            key = (p["spec"]["model"], p["spec"]["seq_len"])
            eng.setdefault(key, []).append((p["ttft_ms"], p["decode_ms_per_token"], p["e2e_ms"], p["memory"]["peak"]))
        for p in json.load(open(p_path)):
            key = (p["model"], p["seq_len"])
            peer.setdefault(key, []).append((p["ttft_ms"], p["decode_ms_per_token"], p["e2e_ms"], p["peak_rss_bytes"]))
    rows = []
    print(f"inference, batch 1, fp32, {a.repeats} rounds alternating engine and peer; load average per round: "
          + ", ".join(f"{x:.2f}" for x in loads))
    print(f"{'model':20s} {'L':>6s} {'TTFT ms eng':>12s} {'peer':>9s} {'ratio':>6s} {'decode ms eng':>14s} {'peer':>8s}"
          f" {'ratio':>6s} {'e2e ms eng':>11s} {'peer':>9s} {'ratio':>6s} {'peak MiB eng':>13s} {'peer':>8s}")
    for key in sorted(eng, key=lambda k: (a.models.split(",").index(k[0]), k[1])):
        if key not in peer:
            continue
        e = [statistics.median(x) for x in zip(*eng[key])]
        p = [statistics.median(x) for x in zip(*peer[key])]
        ratio = [p[i] / e[i] for i in range(3)]  # peer time / engine time: > 1 means the engine is faster
        rows.append({"model": key[0], "seq_len": key[1], "engine": e, "peer": p, "speedup": ratio})
        print(f"{key[0]:20s} {key[1]:6d} {e[0]:12.1f} {p[0]:9.1f} {ratio[0]:5.2f}x {e[1]:14.3f} {p[1]:8.3f} "
              f"{ratio[1]:5.2f}x {e[2]:11.0f} {p[2]:9.0f} {ratio[2]:5.2f}x {e[3] / 2**20:13.0f} {p[3] / 2**20:8.0f}")
    train = []
    if not a.no_train:
        print("\ntraining step, T = 512, B = 8, fp32, median of 20 steps after 3 warm-up; ratio = engine / peer tokens/s")
        for m in a.train_models.split(","):
            e_runs, p_runs = [], []
            for r in range(a.repeats):
                e = run_json([a.pha, "bench", "model", "--preset", m, "-T", "512", "--tokens", "4096", "--steps", "20",
                              "--warmup", "3", "--precision", "fp32", "--json"])
                e_runs.append(e["results"][0]["tokens_per_s"])
                p_path = os.path.join(tmp, f"t{m}{r}.json")
                subprocess.run([os.path.join(HERE, "run.sh"), "--train", "--models", m, "--json", p_path], check=True,
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
                p_runs.append(json.load(open(p_path))[0]["tokens_per_s"])
            e, p = statistics.median(e_runs), statistics.median(p_runs)
            train.append({"model": m, "engine_tokens_per_s": e_runs, "peer_tokens_per_s": p_runs, "ratio": e / p})
            print(f"{m:20s} engine {e:8.0f} tok/s  peer {p:8.0f} tok/s  ratio {e / p:5.2f}x  "
                  f"(engine {', '.join(f'{x:.0f}' for x in e_runs)}; peer {', '.join(f'{x:.0f}' for x in p_runs)})")
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"inference": rows, "train": train, "load_average": loads}, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
