#!/usr/bin/env bash
# Step 9 (issue 13) benchmarks at the default thread policy, for an idle machine: pha-tiny fp32
# against a 3eedaf7 build (as both start, and with both on the same OpenBLAS kernels), pha-tiny
# at the default and bf16 precisions, pha-d512 bf16 against fp32 (separate processes, then
# interleaved in one process when BENCH_PRECISION names the bench_precision binary), and peak
# RSS against T (2,048 ... 65,536, 15 min at most per point; SKIP_MEMORY=1 skips it). Each line
# a fresh process, pairs in turn. docs/performance.md, "Step 9 re-measured".
set -u
PHA=${1:?usage: installer/bench-step9.sh PHA BASE (this build's pha, a 3eedaf7 build's pha)}
BASE=${2:?usage: installer/bench-step9.sh PHA BASE}
tps() { "$@" --json 2>/dev/null | grep -o "\"tokens_per_s\": *[0-9.e+]*" | head -1 | grep -o "[0-9.e+]*$"; }
ratio() { python3 -c "print('%.3f' % ($1 / $2))" 2>/dev/null || echo "?"; }
TINY="bench model --preset pha-tiny -T 512 --tokens 4096 --steps 10 --warmup 2"
D512="bench model --preset pha-d512 -T 512 --tokens 4096 --steps 5 --warmup 2"
$PHA info --no-gemm | grep -E "BLAS kernels|precision"
echo "== pha-tiny fp32 this build vs 3eedaf7, each as it starts, $(date +%T), load $(cut -d' ' -f1-3 /proc/loadavg)"
for i in 1 2 3 4 5; do
  a=$(tps $PHA $TINY --precision fp32); b=$(tps $BASE $TINY)
  echo "pair $i: this $a  base $b  ratio $(ratio $a $b)"
done
core=$($PHA info --no-gemm | sed -n 's/^ *BLAS kernels *\([A-Za-z0-9]*\).*/\1/p')
echo "== same, both on OpenBLAS core $core (OPENBLAS_CORETYPE=$core for both), $(date +%T)"
for i in 1 2 3; do
  a=$(OPENBLAS_CORETYPE=$core tps $PHA $TINY --precision fp32); b=$(OPENBLAS_CORETYPE=$core tps $BASE $TINY)
  echo "pair $i: this $a  base $b  ratio $(ratio $a $b)"
done
echo "== same, both on OpenBLAS's own choice (PHA_BLAS_CORE=system for this build), $(date +%T)"
for i in 1 2 3; do
  a=$(PHA_BLAS_CORE=system tps $PHA $TINY --precision fp32); b=$(tps $BASE $TINY)
  echo "pair $i: this $a  base $b  ratio $(ratio $a $b)"
done
echo "== pha-tiny this build: default precision, then bf16, 2 runs each"
for i in 1 2; do echo "default $(tps $PHA $TINY)  bf16 $(tps $PHA $TINY --precision bf16)"; done
echo "== pha-d512 bf16 vs fp32, separate processes, $(date +%T)"
for i in 1 2 3; do
  a=$(tps $PHA $D512 --precision bf16); b=$(tps $PHA $D512 --precision fp32)
  echo "pair $i: bf16 $a  fp32 $b  ratio $(ratio $a $b)"
done
if [ -n "${BENCH_PRECISION:-}" ]; then
  echo "== pha-d512 interleaved in one process (bench_precision), $(date +%T)"
  $BENCH_PRECISION --preset pha-d512 --precisions fp32,bf16
  echo "== same, PHA_BLAS_CORE=system"
  PHA_BLAS_CORE=system $BENCH_PRECISION --preset pha-d512 --precisions fp32,bf16
fi
if [ -z "${SKIP_MEMORY:-}" ]; then
  echo "== memory against T, pha-tiny, default precision, B 1, $(date +%T)"
  for T in 2048 4096 8192 16384 32768 65536; do
    s=$(date +%s)
    r=$(timeout 900 $PHA bench model --preset pha-tiny -T $T --tokens $T --steps 1 --warmup 0 --json 2>/dev/null | grep -o "\"peak_rss_bytes\": *[0-9]*" | head -1)
    echo "T $T: $r  ($(( $(date +%s) - s )) s)"
  done
fi
echo "== done $(date +%T)"
