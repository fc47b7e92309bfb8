#!/usr/bin/env bash
# Runs every libFuzzer target of a `fuzz` build for a fixed time, from its seed corpus
# tests/fuzz/<target>/ (read only; new inputs go to <build>/fuzz-corpus/<target>/), and prints
# the executions per target. Exit status 1 when any target found a crash, a leak, a timeout or
# a sanitizer report; the input is kept as <build>/fuzz-artifacts/<target>/crash-... (or leak-,
# timeout-, oom-). Targets run up to `nproc` at a time. docs/testing.md.
# The seed is fixed ($PHA_FUZZ_SEED, default 1) so that CI, which fuzzes from an empty working
# corpus, explores the same inputs in the same order on every clean clone: a gate that can be
# rerun. PHA_FUZZ_SEED=0 is libFuzzer's random seed, for longer exploratory runs.
#   tests/fuzz/run-fuzzers.sh [build dir (build/fuzz)] [seconds per target (60)] [target ...]
set -uo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
BUILD=$(realpath "${1:-build/fuzz}")
SECONDS_EACH=${2:-60}
shift $(( $# > 2 ? 2 : $# ))
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(safetensors checkpoint token_cache project bpe bpe_files)
LOGS="$BUILD/fuzz-logs"
mkdir -p "$LOGS"
# Sanitizers: halt on the first report; leaks count (libFuzzer checks each input that leaks).
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1}"

run_one() {
  local t=$1 bin="$BUILD/tests/fuzz/fuzz_$1"
  local work="$BUILD/fuzz-corpus/$t" artifacts="$BUILD/fuzz-artifacts/$t"
  mkdir -p "$work" "$artifacts"
  "$bin" -seed="${PHA_FUZZ_SEED:-1}" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts/" "$work" "$HERE/$t" >"$LOGS/$t.log" 2>&1
  echo $? >"$LOGS/$t.rc"
}

pids=()
for t in "${TARGETS[@]}"; do
  if [ ! -x "$BUILD/tests/fuzz/fuzz_$t" ]; then echo "[fuzz] $BUILD/tests/fuzz/fuzz_$t is not built" >&2; exit 2; fi
  run_one "$t" &
  pids+=($!)
  if [ ${#pids[@]} -ge "$(nproc)" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait

status=0
printf '%-12s %12s %8s %10s %7s  %s\n' target executions seconds exec/s corpus result
for t in "${TARGETS[@]}"; do
  log="$LOGS/$t.log"
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
  corpus=$(find "$BUILD/fuzz-corpus/$t" -type f | wc -l)
  rc=$(cat "$LOGS/$t.rc")
  if [ "$rc" = 0 ]; then result=ok; else result="FAILED (exit $rc; log $log)"; status=1; fi
  rate=$([ -n "${secs:-}" ] && [ "${secs:-0}" -gt 0 ] && echo $(( ${runs:-0} / secs )) || echo -)
  printf '%-12s %12s %8s %10s %7s  %s\n' "$t" "${runs:--}" "${secs:--}" "$rate" "$corpus" "$result"
  if [ "$rc" != 0 ]; then grep -m 20 -E 'ERROR|SUMMARY|fuzz:|invariant|Test unit written' "$log" | sed 's/^/    /'; fi
done
exit $status
