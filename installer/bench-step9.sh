#!/usr/bin/env bash
# Step 9 (issue 13) benchmarks at the default thread policy, for an idle machine: pha-tiny fp32
# against a 3eedaf7 build, pha-tiny at the default precision, pha-d512 bf16 against fp32, and
# peak RSS against T (2,048 ... 65,536, 15 min at most per point). Each line a fresh process,
# pairs in turn. docs/performance.md, "Idle re-measurement at the default thread policy".
set -u
PHA=${1:?usage: installer/bench-step9.sh PHA BASE (this build's pha, a 3eedaf7 build's pha)}
BASE=${2:?usage: installer/bench-step9.sh PHA BASE}
echo "== pha-tiny fp32 this build vs 3eedaf7, $(date +%T), load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3 4 5; do
  a=$($PHA bench model --preset pha-tiny -T 512 --tokens 4096 --steps 10 --warmup 2 --precision fp32 --json 2>/dev/null | grep -o "\"tokens_per_s\": *[0-9.e+]*" | head -1)
  b=$($BASE bench model --preset pha-tiny -T 512 --tokens 4096 --steps 10 --warmup 2 --json 2>/dev/null | grep -o "\"tokens_per_s\": *[0-9.e+]*" | head -1)
  echo "pair $i: this $a  base $b"
done
echo "== pha-tiny auto (bf16) this build, 2 runs"
for i in 1 2; do
  $PHA bench model --preset pha-tiny -T 512 --tokens 4096 --steps 10 --warmup 2 --json 2>/dev/null | grep -o "\"tokens_per_s\": *[0-9.e+]*" | head -1
done
echo "== pha-d512 bf16 vs fp32, $(date +%T)"
for i in 1 2 3; do
  a=$($PHA bench model --preset pha-d512 -T 512 --tokens 4096 --steps 5 --warmup 2 --precision bf16 --json 2>/dev/null | grep -o "\"tokens_per_s\": *[0-9.e+]*" | head -1)
  b=$($PHA bench model --preset pha-d512 -T 512 --tokens 4096 --steps 5 --warmup 2 --precision fp32 --json 2>/dev/null | grep -o "\"tokens_per_s\": *[0-9.e+]*" | head -1)
  echo "pair $i: bf16 $a  fp32 $b"
done
echo "== memory against T, pha-tiny auto, B 1, $(date +%T)"
for T in 2048 4096 8192 16384 32768 65536; do
  s=$(date +%s)
  r=$(timeout 900 $PHA bench model --preset pha-tiny -T $T --tokens $T --steps 1 --warmup 0 --json 2>/dev/null | grep -o "\"peak_rss_bytes\": *[0-9]*" | head -1)
  echo "T $T: $r  ($(( $(date +%s) - s )) s)"
done
echo "== done $(date +%T)"
