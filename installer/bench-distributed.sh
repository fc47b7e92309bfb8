#!/usr/bin/env bash
# Data-parallel benchmark on this machine (docs/distributed.md, "Measured"): for each model,
# `pha --threads 2 train` (1 process x 2 threads) against `pha --threads 1 train --nproc 2`
# (2 processes x 1 thread, Gloo on loopback), in the order A B B A so that a drifting load
# hits both alike. A text project on the quickstart's Gutenberg corpus, byte tokenizer, fp32,
# batch 8 x T 128 (1024 tokens a step), $PHA_BENCH_STEPS steps (default 20). Printed per run:
# the mean of train/tokens_per_s over steps 4..N, and for the 2-process runs the median and
# mean of dist/reduce_exposed_s (reduction time not hidden behind backward) and the mean of
# dist/reduce_inflight_s (time from a bucket's launch to its completion), with the load
# average when the run began. Usage: installer/bench-distributed.sh [BUILD_DIR] (default
# build/default); PHA_BENCH_MODELS="pha-tiny pha-d512" by default.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$ROOT/build/default}" && pwd)
PHA="$BUILD/app/cli/pha"
STEPS=${PHA_BENCH_STEPS:-20}
MODELS=${PHA_BENCH_MODELS:-pha-tiny pha-d512}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

project() {  # $1 dir, $2 model
  mkdir -p "$1"
  cat >"$1/project.json" <<JSON
{"name": "bench-dist", "data": {"kind": "gutenberg", "tokenizer": {"kind": "byte"}},
 "training": {"steps": $STEPS, "batch_size": 8, "seq_len": 128, "lr": 0.001, "warmup_steps": 5,
              "eval_every": $STEPS, "eval_tokens": 1024, "final_eval_tokens": 1024, "mixer_every": $STEPS,
              "precision": "fp32", "seed": 1},
 "variants": ["$2"]}
JSON
}

# mean (or median) of one metric over steps >= 4 of run 1 in the project
stat() {  # $1 dir, $2 key, $3 mean|median
  "$PHA" export --run 1 --project "$1" --format csv --key "$2" | awk -F, 'NR > 1 && $3 >= 4 { print $6 }' | sort -g |
    awk -v how="$3" '{ v[n++] = $1; s += $1 }
      END { if (n == 0) { print "-"; exit }
            if (how == "mean") { printf "%.4g", s / n; exit }
            printf "%.4g", (n % 2) ? v[(n - 1) / 2] : (v[n / 2 - 1] + v[n / 2]) / 2 }'
}

run_one() {  # $1 model, $2 config (1x2 | 2x1), $3 tag
  local dir="$work/$1-$2-$3" load
  project "$dir" "$1"
  load=$(cut -d' ' -f1 /proc/loadavg)
  if [ "$2" = 1x2 ]; then
    "$PHA" --threads 2 train "$dir" --quiet --no-profile >/dev/null
  else
    "$PHA" --threads 1 train "$dir" --nproc 2 --quiet --no-profile >/dev/null 2>&1
  fi
  local tps exposed_med exposed_mean inflight
  tps=$(stat "$dir" train/tokens_per_s mean)
  if [ "$2" = 2x1 ]; then
    exposed_med=$(stat "$dir" dist/reduce_exposed_s median)
    exposed_mean=$(stat "$dir" dist/reduce_exposed_s mean)
    inflight=$(stat "$dir" dist/reduce_inflight_s mean)
  else
    exposed_med=-; exposed_mean=-; inflight=-
  fi
  printf '%-9s %-4s %-3s %12s %14s %15s %14s %6s\n' "$1" "$2" "$3" "$tps" "$exposed_med" "$exposed_mean" "$inflight" "$load"
}

printf '%-9s %-4s %-3s %12s %14s %15s %14s %6s\n' model conf run "tokens/s" "exposed med s" "exposed mean s" "inflight mean s" load
for m in $MODELS; do
  run_one "$m" 1x2 a
  run_one "$m" 2x1 a
  run_one "$m" 2x1 b
  run_one "$m" 1x2 b
done
