#!/usr/bin/env bash
# Renders the window's views fixed in step 12 (docs/gui.md, docs/store.md) into docs/images/, as
# a user sees them under Xvfb: the window at 1000 x 700; a damaged store's banner; Run project
# offering to train only the new variant; the Paused status line; the report of a project whose
# data is elsewhere; the views after switching to another project; Compare's curves (validation
# drawn raw), Pareto (where each cost came from) and metrics (units). It works on copies of a
# project that has trained runs (default: the quickstart in the data directory, made by
# `pha quickstart`); the store of 2026-12-02 comes from tests/engine/store/data.
# Options: --build-dir DIR (default build/default), --project DIR, --out DIR (default docs/images).
set -euo pipefail
. "$(dirname "$0")/screenshot-common.sh"
screenshot_setup screenshot-views.sh "$@"
work=$(mktemp -d)
export DISPLAY=:96
export XDG_CONFIG_HOME="$work/config"  # no saved layout of the user's
Xvfb "$DISPLAY" -screen 0 1600x1000x24 >/dev/null 2>&1 &
xvfb=$!
gui=
trap 'kill $gui $xvfb 2>/dev/null || true; rm -rf "$work"' EXIT
sleep 1

# A copy of the project: its project.json (training.steps set to what its runs were trained
# with, so that they count as trained) and its store.
copy_project() {
  local dest=$1
  mkdir -p "$dest"
  local steps
  steps=$("$PHA" runs show --project "$PROJECT" 1 --json | sed -n 's/.*"steps": *\([0-9]*\).*/\1/p' | head -1)
  sed "s/\"steps\": [0-9]*/\"steps\": ${steps:-150}/" "$PROJECT/project.json" > "$dest/project.json"
  cp "$PROJECT/runs.sqlite" "$dest/runs.sqlite"
}
start() {  # start ARGS...: the window, sized SIZE (default 1600x1000), waited for
  "$GUI" "$@" >/dev/null 2>&1 &
  gui=$!
  for _ in $(seq 1 60); do
    win=$(xdotool search --name "PHA Workbench" 2>/dev/null | head -1 || true)
    [ -n "$win" ] && break
    sleep 0.5
  done
  xdotool windowsize "$win" "${SIZE:-1600}" "${SIZE_H:-1000}"
  sleep "${WAIT:-6}"
}
keys() {  # keys KEY...: typed into the window (focused first: Qt ignores sent events)
  xdotool windowfocus --sync "$win" 2>/dev/null || true
  xdotool key "$@"
}
stop() {
  kill $gui 2>/dev/null || true
  wait $gui 2>/dev/null || true
  gui=
}
shot() {  # shot FILE: the window's area of the screen
  import -window root -crop "${SIZE:-1600}x${SIZE_H:-1000}+0+0" "$1"
  echo "[screenshot] $1"
}

copy_project "$work/qs"
# 1. The window at 1000 x 700: the docks keep their minimum and scroll.
SIZE=1000 SIZE_H=700 start "$work/qs" --compare --run pha-tiny
SIZE=1000 SIZE_H=700 shot "$OUT/window-1000x700.png"
stop
# 2. Compare: validation drawn raw; Pareto's peak memory from the profile, each cost's source
# under the plot; the metrics' training rows with their units. (Coordinates of the default
# 1600 x 1000 layout: the Pareto cost box, the metrics filter.)
start "$work/qs" --compare --compare-tab Curves --run pha-tiny
shot "$OUT/compare-curves.png"
stop
start "$work/qs" --compare --compare-tab Pareto --run pha-tiny
xdotool mousemove 1025 641 click 1
sleep 1
xdotool key End Return
sleep 2
shot "$OUT/compare-pareto.png"
stop
start "$work/qs" --compare --compare-tab Metrics --run pha-tiny
xdotool mousemove 1103 641 click 1
xdotool type --delay 30 "train/"
sleep 2
shot "$OUT/compare-metrics.png"
stop
# 3. A damaged store: the banner, no runs shown.
mkdir -p "$work/damaged"
cp "$work/qs/project.json" "$work/damaged/"
cp "$ROOT/tests/engine/store/data/damaged-2026-12-02.sqlite" "$work/damaged/runs.sqlite"
chmod u+w "$work/damaged/runs.sqlite"
start "$work/damaged"
shot "$OUT/store-damaged-banner.png"
stop
# 4. A new variant beside trained runs: Run project offers to train only it.
copy_project "$work/newvariant"
sed -i 's/"variants": \[\(.*\)\]/"variants": [\1, {"name": "pha-tiny-seed2", "training": {"seed": 2}}]/' "$work/newvariant/project.json"
start "$work/newvariant"
keys ctrl+r
sleep 2
shot "$OUT/run-only-new.png"
xdotool key Escape
stop
# 5. Paused: the line stays until Resume (the toolbar's Pause clicked while the first run
# trains; under Xvfb the Ctrl+P shortcut went to the focused filter field and paused nothing).
mkdir -p "$work/live"
cp "$PROJECT/project.json" "$work/live/"
WAIT=12 start "$work/live" --start
xdotool mousemove 253 32 click 1
sleep 6
shot "$OUT/queue-paused.png"
stop
# 6. The data elsewhere: the report is still there.
copy_project "$work/elsewhere"
sed -i 's/"kind": "gutenberg"/"kind": "gutenberg", "path": "\/srv\/gpu-box\/gutenberg"/' "$work/elsewhere/project.json"
start "$work/elsewhere" --show-dock dock.report
shot "$OUT/report-data-elsewhere.png"
stop
# 7. Another project opened after the quickstart: every view shows it (or says it is empty).
mkdir -p "$work/empty"
cp "$work/qs/project.json" "$work/empty/"
sed -i 's/"name": "quickstart"/"name": "empty-project"/' "$work/empty/project.json"
start "$work/qs" --compare --run pha-tiny
keys ctrl+o
sleep 2
xdotool type --delay 20 "$work/empty"
xdotool key Return
sleep 5
shot "$OUT/project-switched.png"
stop
