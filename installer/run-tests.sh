#!/usr/bin/env bash
# README command 2: set up what is missing, build everything, run every test (ctest).
# Extra arguments go to ctest, e.g. `-L unit` or `-LE slow`. Without arguments every test runs
# but the label `long` (the 5-minute store soak, whose 40-second version runs here): CI runs it
# as a later stage (.ci/run); `ctest --preset default -L long` runs it by hand.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/installer/setup.sh"
# shellcheck source=installer/build.sh
source "$ROOT/installer/build.sh"
pha_build default
cd "$ROOT"
if [ $# -eq 0 ]; then
  ctest --preset default -j "$(nproc)" -LE long
  echo "run-tests: every test passed but the label long (the 300 s store soak; CI runs it: ctest --preset default -L long)"
else
  ctest --preset default -j "$(nproc)" "$@"
fi
