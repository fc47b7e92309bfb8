#!/usr/bin/env bash
# Renders the workbench as a user sees it after the quickstart, into docs/images/:
#   1. set-up and build (as README command 1; skipped with --build-dir), 2. `pha quickstart`
#   headless (skipped when the quickstart's three runs already finished), 3. the window training
#   a copy of the project (workbench-training.png), 4. the window under Xvfb showing the
#   pha-tiny run with the three runs compared, and each Compare tab, 5. the Efficiency dock: when the
#   store has no profile runs yet, the window measures them itself (Run > Measure efficiency,
#   the project's "profile" section) and the picture is taken once they are recorded.
# Options: --steps N (shorter quickstart), --out DIR (default docs/images), --build-dir DIR (an
# existing build: DIR/app/cli/pha, DIR/app/gui/pha-workbench), --project DIR (default: the
# quickstart in the data directory). Environment: SHOT_RUN (the run shown, default
# pha-tiny/lr=0.01,confirm,seed=10: a replica the claims read), SCALING_PROJECT (a trained copy of projects/scaling: compare-scaling.png),
# TRAINING_WAIT (seconds before the training picture, default 60).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/docs/images"
STEPS=()
BUILD=""
PROJECT=""
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) STEPS=(--steps "$2"); shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    --build-dir) BUILD=$(cd "$2" && pwd); shift 2 ;;
    --project) PROJECT=$2; shift 2 ;;
    *) echo "screenshot.sh: unknown option $1 (allowed: --steps N, --out DIR, --build-dir DIR, --project DIR)" >&2; exit 2 ;;
  esac
done
if [ -z "$BUILD" ]; then
  "$ROOT/installer/setup.sh"
  # shellcheck source=installer/build.sh
  source "$ROOT/installer/build.sh"
  pha_build default
  BUILD="$ROOT/build/default"
fi
PHA="$BUILD/app/cli/pha"
GUI="$BUILD/app/gui/pha-workbench"
DATA=${PHA_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/pha-workbench}
[ -n "${PHA_DATA_DIR:-}" ] && DATA=$PHA_DATA_DIR
[ -n "$PROJECT" ] || PROJECT="$DATA/projects/quickstart"

finished=$("$PHA" runs list --project "$PROJECT" 2>/dev/null | grep -v "profile: " | grep -c finished || true)
if [ "${finished:-0}" -lt 3 ]; then
  "$PHA" quickstart --dir "$PROJECT" "${STEPS[@]}"
fi

mkdir -p "$OUT"
display=:97
Xvfb "$display" -screen 0 1600x1000x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $gui $xvfb 2>/dev/null || true' EXIT
sleep 1
# During training: a copy of the project without its runs, trained by the window (--start);
# the picture is taken once the first run is well under way (TRAINING_WAIT seconds, default 60).
live=$(mktemp -d)
cp "$PROJECT/project.json" "$live/"
DISPLAY=$display "$GUI" "$live" --start >/dev/null 2>&1 &
gui=$!
sleep "${TRAINING_WAIT:-60}"
DISPLAY=$display import -window root "$OUT/workbench-training.png"
echo "[screenshot] $OUT/workbench-training.png"
kill $gui 2>/dev/null || true
wait $gui 2>/dev/null || true
rm -rf "$live"
# shot FILE ARGS...: opens the window on the project with ARGS, pictures it after 6 s, closes it.
shot() {
  local file=$1; shift
  DISPLAY=$display "$GUI" "$PROJECT" "$@" >/dev/null 2>&1 &
  gui=$!
  sleep 6
  DISPLAY=$display import -window root "$file"
  echo "[screenshot] $file"
  kill $gui 2>/dev/null || true
  wait $gui 2>/dev/null || true
}
# The run shown: pha-tiny at lr 3e-3 (the quickstart trains each variant at 1e-3 and 3e-3).
RUN=${SHOT_RUN:-pha-tiny/lr=0.01,confirm,seed=10}
shot "$OUT/workbench-quickstart.png" --compare --run "$RUN"
# Each Compare tab with the quickstart's runs (compare-curves.png, compare-mixer.png, ...).
for tab in Curves Mixer Metrics "Config diff" Pareto Length; do
  shot "$OUT/compare-$(echo "$tab" | tr 'A-Z ' 'a-z-').png" --compare --compare-tab "$tab" --run "$RUN"
done
# The Scaling tab needs runs of several sizes: SCALING_PROJECT=<a trained projects/scaling copy>.
if [ -n "${SCALING_PROJECT:-}" ]; then
  saved=$PROJECT
  PROJECT=$SCALING_PROJECT
  shot "$OUT/compare-scaling.png" --compare --compare-tab Scaling
  PROJECT=$saved
fi
# The Efficiency dock. Without profile runs in the store, the window measures them (the
# worker processes are $PHA, found next to the window's program in the build tree).
if ! "$PHA" runs list --project "$PROJECT" 2>/dev/null | grep -q "profile: "; then
  DISPLAY=$display "$GUI" "$PROJECT" --measure-efficiency >/dev/null 2>&1 &
  gui=$!
  for _ in $(seq 1 180); do  # up to 15 min on a loaded machine
    [ "$("$PHA" runs list --project "$PROJECT" 2>/dev/null | grep -c "profile: " || true)" -ge 3 ] && break
    sleep 5
  done
  kill $gui 2>/dev/null || true
  wait $gui 2>/dev/null || true
fi
if "$PHA" runs list --project "$PROJECT" 2>/dev/null | grep -q "profile: "; then
  shot "$OUT/workbench-efficiency.png" --run "$RUN" --show-dock dock.efficiency
fi
