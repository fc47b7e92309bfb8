#!/usr/bin/env bash
# Runs one ctest entry of ours: a GoogleTest program with a --gtest_filter (a whole suite, or one
# test of a slow program; tests/discover_tests.cmake registers them). Its output passes through
# as it comes; the exit code is the program's, except that a run in which no test passed and at
# least one was skipped (GTEST_SKIP: no GPU, no Gutenberg data, running as root) exits 77, which
# ctest reports as skipped. A suite where some tests passed and some were skipped passes; the
# skipped ones are listed in its output ("[  SKIPPED ]"). A failure always fails.
set -uo pipefail
log=$(mktemp "${TMPDIR:-/tmp}/pha-gtest.XXXXXX")
trap 'rm -f "$log"' EXIT
"$@" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
if [ "$rc" -ne 0 ]; then
  exit "$rc"
fi
if grep -q '^\[  PASSED  \] 0 tests\.' "$log" && grep -q '^\[  SKIPPED \]' "$log"; then
  exit 77
fi
exit 0
