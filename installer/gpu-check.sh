#!/usr/bin/env bash
# GPU check (step 11): on a machine with an NVIDIA GPU, nvcc, CMake and a Python torch (2.x,
# CUDA), but no Qt and no network: unpack the small Debian packages carried from the build
# machine (installer/gpu-debs.sh -> build/gpu-debs/*.deb) into a private prefix, build the
# headless preset against the Python torch's LibTorch with CUDA on, run every test (the cuda
# ones included), then the benchmarks, and write everything into one report file.
# Meant to fit one 10-minute command:  bash installer/gpu-check.sh [report-file]
#
# Status: written on a machine without a GPU; it has not run on a GPU yet (no device has been
# lent to this project). Each stage logs to $WORK/*.log and the report says which stage failed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REPORT=${1:-${OUT:-$ROOT/build}/gpu-report.md}
WORK=${PHA_GPU_WORK:-$ROOT/build/gpu}
DEBS=${PHA_GPU_DEBS:-$ROOT/build/gpu-debs}
PREFIX="$WORK/prefix"
JOBS=$(nproc)
mkdir -p "$WORK" "$(dirname "$REPORT")"
start=$(date +%s)
say() { echo "$*" | tee -a "$REPORT"; }
stage() {  # stage NAME TIMEOUT_S COMMAND...: runs it with a log, records pass/fail and time
  local name=$1 limit=$2; shift 2
  local t0; t0=$(date +%s)
  timeout "$limit" "$@" >"$WORK/$name.log" 2>&1
  local rc=$?
  say "- **$name**: $([ $rc = 0 ] && echo ok || echo "FAILED (exit $rc)") in $(( $(date +%s) - t0 )) s (log: $WORK/$name.log)"
  [ $rc = 0 ] || { echo '```' >>"$REPORT"; tail -n 40 "$WORK/$name.log" >>"$REPORT"; echo '```' >>"$REPORT"; }
  return $rc
}

: >"$REPORT"
say "# PHA Workbench GPU check, $(date -u +%Y-%m-%dT%H:%MZ)"
say ""
say "## Machine"
say '```'
{ nvidia-smi --query-gpu=name,memory.total,driver_version,compute_cap --format=csv 2>&1 || true
  nvcc --version 2>&1 | tail -n 2 || true
  cmake --version 2>&1 | head -n 1
  python3 -c 'import torch;print("torch", torch.__version__, "cuda", torch.version.cuda, "prefix", torch.utils.cmake_prefix_path)' 2>&1
  nproc; } | tee -a "$REPORT"
say '```'
TORCH_PREFIX=$(python3 -c 'import torch;print(torch.utils.cmake_prefix_path)' 2>/dev/null) || {
  say "no Python torch found: cannot build"; exit 1; }

say ""
say "## Stages"
# 1. The carried packages, unpacked without root (dpkg-deb -x), used through CMAKE_PREFIX_PATH.
unpack() {
  [ -d "$DEBS" ] || { echo "no $DEBS (run installer/gpu-debs.sh on the build machine and carry it)"; return 1; }
  rm -rf "$PREFIX"; mkdir -p "$PREFIX"
  for d in "$DEBS"/*.deb; do dpkg-deb -x "$d" "$PREFIX" || return 1; done
  # -dev packages' .so links point at the runtime packages' files, both unpacked here.
  ls "$PREFIX/usr/include" "$PREFIX/usr/lib/x86_64-linux-gnu" | head -n 50
}
stage unpack 120 unpack || exit 1
export PATH="$PREFIX/usr/bin:$PATH"
export LD_LIBRARY_PATH="$PREFIX/usr/lib/x86_64-linux-gnu:${LD_LIBRARY_PATH:-}"
export PKG_CONFIG_PATH="$PREFIX/usr/lib/x86_64-linux-gnu/pkgconfig:$PREFIX/usr/share/pkgconfig"
export PKG_CONFIG_SYSROOT_DIR="$PREFIX"  # the .pc files say /usr/...

# 2. Configure and build the headless preset with CUDA on (H200: sm_90).
configure() {
  cmake --preset headless -DPHA_CUDA=ON -DCMAKE_CUDA_ARCHITECTURES=90 \
    -DCMAKE_PREFIX_PATH="$TORCH_PREFIX;$PREFIX/usr;$PREFIX/usr/lib/x86_64-linux-gnu/cmake;$PREFIX/usr/share/cmake" \
    -DPHA_USE_CCACHE=OFF
}
stage configure 180 configure || exit 1
stage build 420 cmake --build --preset headless -j "$JOBS" || exit 1

# 3. Every test (cuda-labelled ones run on the GPU, skipping with 77 only without one).
stage tests 300 ctest --preset headless -j "$JOBS" --timeout 240
say ""
say "### CUDA tests"
say '```'
grep -E "cuda|Passed|Failed|Skipped|tests passed" "$WORK/tests.log" | tail -n 40 >>"$REPORT"
say '```'

# 4. Benchmarks (figures as measured; nothing is compared against a stored number).
PHA="$ROOT/build/headless/app/cli/pha"
say ""
say "## Benchmarks"
stage info 60 "$PHA" info && sed 's/^/    /' "$WORK/info.log" >>"$REPORT"
# `pha bench model` options as of this writing; --device and --precision are added by steps 9/11
# (the stage fails, and says so, while they are missing).
stage bench-125m 240 "$PHA" bench model --preset pha-125m -T 1024 --tokens 8192 --steps 10 --warmup 3 \
  --device cuda --precision bf16 && sed 's/^/    /' "$WORK/bench-125m.log" >>"$REPORT"
stage efficiency-180m 300 "$PHA" bench --models pha-180m,transformer-180m --seq-lens 2048,8192 --phases forward,train \
  --tokens-per-batch 16384 --device cuda --repeats 3 --warmup 1 && sed 's/^/    /' "$WORK/efficiency-180m.log" >>"$REPORT"
KBENCH="$ROOT/build/headless/tests/kernels/test_kernels"
[ -x "$KBENCH" ] && stage kernel-bench 120 "$KBENCH" --bench && sed 's/^/    /' "$WORK/kernel-bench.log" >>"$REPORT"

say ""
say "Total: $(( $(date +%s) - start )) s. Report: $REPORT"
