#!/usr/bin/env bash
# The study-speed benchmark (docs/performance.md, "Studies at twice the speed"), all measured in
# one run on this machine, as ratios (these machines are shared and noisy: absolute figures move,
# ratios taken side by side move much less):
#
#  1. the training step of pha-tiny and transformerpp-tiny at T 128 and 512, B 8, fp32, the engine
#     (`pha bench model` at its default threads: one intra-op thread and BLAS on every core, its
#     best for one run alone on a small machine) against the PyTorch eager peer (tools/peer,
#     Debian's torch 1.13 with `--threads 1`: one intra-op thread, OpenBLAS on every core, its
#     best setting on 2 cores), alternating engine and peer ROUNDS times, medians; both at one
#     thread each (`--one-core`: engine --threads 1, peer with OPENBLAS_NUM_THREADS=1) as well;
#  2. a study's throughput: a 6-run project (pha-tiny, transformerpp-tiny, sequential-tiny x
#     seeds 0, 1; the quickstart's shape: B 8, T 128 on the Gutenberg books) trained with
#     `pha train --jobs 1` and `--jobs 2`, wall time of each, and whether the two stores hold the
#     same numbers bit for bit (tools/compare_stores.py).
#
#   tools/bench-studies.sh [--pha PATH] [--rounds N] [--steps N] [--one-core] [--skip-peer] [--skip-jobs]
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
pha="$root/build/default/app/cli/pha"
[ -x "$pha" ] || pha="$root/build/headless/app/cli/pha"
rounds=3
study_steps=60
skip_peer=0
skip_jobs=0
one_core=0
while [ $# -gt 0 ]; do
  case "$1" in
    --pha) pha="$2"; shift 2 ;;
    --rounds) rounds="$2"; shift 2 ;;
    --steps) study_steps="$2"; shift 2 ;;
    --skip-peer) skip_peer=1; shift ;;
    --skip-jobs) skip_jobs=1; shift ;;
    --one-core) one_core=1; shift ;;
    -h|--help) sed -n '2,20p' "$0"; exit 0 ;;
    *) echo "bench-studies: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x "$pha" ] || { echo "bench-studies: no pha program (build it, or --pha PATH)" >&2; exit 1; }
work="$(mktemp -d /tmp/pha-bench-studies.XXXXXX)"
trap 'rm -rf "$work"' EXIT
py="$(command -v python3)"

echo "bench-studies: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $pha ($(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?'))"

median() { sort -g | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

if [ "$skip_peer" -eq 0 ]; then
  echo
  if [ "$one_core" -eq 1 ]; then
    engine_threads=(--threads 1); peer_env=(env OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1)
    echo "1. training step, fp32, B 8, one core each: engine (pha --threads 1 bench model: intra-op 1, BLAS 1) / PyTorch eager peer (tools/peer --threads 1, OPENBLAS_NUM_THREADS=1), ${rounds} alternating rounds, medians"
  else
    engine_threads=(); peer_env=(env)
    echo "1. training step, fp32, B 8, each at its best threads: engine (pha bench model, default: intra-op 1, BLAS $(nproc)) / PyTorch eager peer (tools/peer --threads 1: intra-op 1, OpenBLAS's own $(nproc)), ${rounds} alternating rounds, medians"
  fi
  printf "%-20s %5s %14s %14s %12s\n" "model" "T" "engine tok/s" "peer tok/s" "engine/peer"
  for model in pha-tiny transformerpp-tiny; do
    for T in 128 512; do
      : > "$work/e.txt"; : > "$work/p.txt"
      for ((r = 0; r < rounds; r++)); do
        "$pha" "${engine_threads[@]}" bench model --preset "$model" -T "$T" --tokens $((8 * T)) --steps 10 --warmup 2 \
          --precision fp32 --gemm-size 256 --json 2>/dev/null |
          "$py" -c 'import json,sys; print(json.load(sys.stdin)["results"][0]["tokens_per_s"])' >> "$work/e.txt"
        "${peer_env[@]}" "$here/peer/run.sh" --train --models "$model" --train-seq-len "$T" --train-batch 8 --train-steps 10 \
          --train-warmup 2 --threads 1 --json "$work/peer.json" > /dev/null 2>&1
        "$py" -c 'import json,sys; print(json.load(open(sys.argv[1]))[0]["tokens_per_s"])' "$work/peer.json" >> "$work/p.txt"
      done
      e="$(median < "$work/e.txt")"; p="$(median < "$work/p.txt")"
      printf "%-20s %5d %14.0f %14.0f %11.2fx\n" "$model" "$T" "$e" "$p" "$(awk -v e="$e" -v p="$p" 'BEGIN{print e/p}')"
    done
  done
fi

if [ "$skip_jobs" -eq 0 ]; then
  echo
  echo "2. a study's throughput: 6 runs (pha-tiny, transformerpp-tiny, sequential-tiny x seeds 0, 1; ${study_steps} steps of B 8 x T 128, Gutenberg books)"
  for jobs in 1 2; do
    mkdir -p "$work/jobs$jobs"
    cat > "$work/jobs$jobs/project.json" <<JSON
{
  "name": "bench-studies",
  "data": {"kind": "gutenberg", "tokenizer": {"kind": "byte"}},
  "training": {"steps": $study_steps, "batch_size": 8, "seq_len": 128, "lr": 0.003, "mixer_lr": 0.03,
               "warmup_steps": $((study_steps / 4)), "grad_clip": 1.0, "eval_every": $((study_steps / 2)),
               "eval_tokens": 8192, "final_eval_tokens": 16384, "mixer_every": 5},
  "variants": ["pha-tiny", "transformerpp-tiny", "sequential-tiny"],
  "seeds": [0, 1]
}
JSON
  done
  declare -A wall
  for jobs in 1 2; do
    t0=$(date +%s.%N)
    "$pha" train --jobs "$jobs" --quiet --no-profile "$work/jobs$jobs" > "$work/train$jobs.log" 2>&1 ||
      { echo "bench-studies: pha train --jobs $jobs failed:" >&2; tail -5 "$work/train$jobs.log" >&2; exit 1; }
    t1=$(date +%s.%N)
    wall[$jobs]="$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.1f", b-a}')"
  done
  printf "%-12s %10s %18s\n" "" "wall (s)" "runs per minute"
  for jobs in 1 2; do
    printf "%-12s %10s %18.2f\n" "--jobs $jobs" "${wall[$jobs]}" "$(awk -v w="${wall[$jobs]}" 'BEGIN{print 6*60/w}')"
  done
  echo "throughput --jobs 2 / --jobs 1: $(awk -v a="${wall[1]}" -v b="${wall[2]}" 'BEGIN{printf "%.2fx", a/b}')"
  echo "the two stores, every metric point, evaluation row and mixer snapshot (tools/compare_stores.py):"
  "$py" "$here/compare_stores.py" "$work/jobs1/runs.sqlite" "$work/jobs2/runs.sqlite" | sed 's/^/  /'
fi
