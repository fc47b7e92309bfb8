#!/usr/bin/env bash
# Renders the pictures of docs/gui.md "What the window keeps" (step 24) into docs/images/, as a
# user sees them under Xvfb, at 1600 x 1000 and at 1280 x 720 (the screen's size; a fresh
# settings folder, so the window fills it): the quickstart's Report dock led by its verdicts, the
# Lens's Tokens tab comparing claim 1's groups token by token (the a - b column and its interval
# in view), and Compare with six runs (seed 0 of each of the quickstart's six selection runs).
# It works on a copy of a trained quickstart (default: the one in the data directory, made by
# `pha quickstart`; its checkpoints are read where the store says they are).
# Options: --build-dir DIR (default build/default), --project DIR, --out DIR (default docs/images).
set -euo pipefail
. "$(dirname "$0")/screenshot-common.sh"
screenshot_setup screenshot-step24.sh "$@"
work=$(mktemp -d)
export DISPLAY=:95
xvfb=
gui=
trap 'kill $gui $xvfb 2>/dev/null || true; rm -rf "$work"' EXIT
mkdir -p "$work/qs"
cp "$PROJECT/project.json" "$PROJECT/runs.sqlite" "$work/qs/"

start() {  # start WAIT ARGS...: the window on the copy, waited for, then WAIT seconds
  local wait=$1
  shift
  rm -rf "$work/config"
  XDG_CONFIG_HOME="$work/config" "$GUI" "$work/qs" "$@" >/dev/null 2>&1 &
  gui=$!
  for _ in $(seq 1 60); do
    xdotool search --name "PHA Workbench" >/dev/null 2>&1 && break
    sleep 0.5
  done
  sleep "$wait"
}
stop() {
  kill $gui 2>/dev/null || true
  wait $gui 2>/dev/null || true
  gui=
}
shot() {
  import -window root "$1"
  echo "[screenshot] $1"
}

for size in 1600x1000 1280x720; do
  Xvfb "$DISPLAY" -screen 0 "${size}x24" >/dev/null 2>&1 &
  xvfb=$!
  sleep 1
  start 6 --show-dock dock.report
  shot "$OUT/step24-report-verdicts-$size.png"
  stop
  start 40 --evidence 1:lens
  shot "$OUT/step24-lens-tokens-a-minus-b-$size.png"
  stop
  start 8 --compare-runs 1,4,7,10,13,16 --compare-tab Curves
  shot "$OUT/step24-compare-six-runs-$size.png"
  stop
  kill $xvfb 2>/dev/null || true
  wait $xvfb 2>/dev/null || true
  xvfb=
done
