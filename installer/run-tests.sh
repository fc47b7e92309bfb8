#!/usr/bin/env bash
# README command 2: set up what is missing, build everything, run every test (ctest).
# Extra arguments go to ctest, e.g. `-L unit` or `-LE slow`.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/installer/setup.sh"
# shellcheck source=installer/build.sh
source "$ROOT/installer/build.sh"
pha_build default
cd "$ROOT"
ctest --preset default -j "$(nproc)" "$@"
