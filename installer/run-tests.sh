#!/usr/bin/env bash
# README command 2: set up what is missing, build everything, run every test (ctest).
# Extra arguments go to ctest, e.g. `-L unit` or `-LE slow`. Without arguments every test runs
# but the label `long` (the 5-minute store soak, whose 40-second version runs here): CI runs it
# as a later stage (.ci/run); `ctest --preset default -L long` runs it by hand. The last line
# gives the time of each part (set-up, build, tests), measured with the shell's clock.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
t0=$(date +%s)
"$ROOT/installer/setup.sh"
t1=$(date +%s)
# shellcheck source=installer/build.sh
source "$ROOT/installer/build.sh"
pha_build default
t2=$(date +%s)
cd "$ROOT"
rc=0
if [ $# -eq 0 ]; then
  ctest --preset default -j "$(nproc)" -LE long || rc=$?
else
  ctest --preset default -j "$(nproc)" "$@" || rc=$?
fi
t3=$(date +%s)
mmss() { printf '%d min %02d s' $(($1 / 60)) $(($1 % 60)); }
echo "run-tests: set-up $(mmss $((t1 - t0))), build $(mmss $((t2 - t1))), tests $(mmss $((t3 - t2))); total $(mmss $((t3 - t0)))"
if [ $# -eq 0 ] && [ $rc -eq 0 ]; then
  echo "run-tests: every test passed but the label long (the 300 s store soak; CI runs it: ctest --preset default -L long)"
fi
exit $rc
