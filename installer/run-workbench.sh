#!/usr/bin/env bash
# README command 1: set up what is missing, build, and run the main job:
#   with a display -> the workbench (pha-workbench) on its default project;
#   without one    -> the headless quickstart (pha quickstart) in the terminal.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
"$ROOT/installer/setup.sh"
# shellcheck source=installer/build.sh
source "$ROOT/installer/build.sh"
pha_build default

if [ -n "${DISPLAY:-}" ] || [ -n "${WAYLAND_DISPLAY:-}" ]; then
  exec "$ROOT/build/default/app/gui/pha-workbench" "$@"
else
  echo "[run] no display (DISPLAY/WAYLAND_DISPLAY unset): running the headless job" >&2
  exec "$ROOT/build/default/app/cli/pha" quickstart
fi
