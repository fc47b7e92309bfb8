#!/usr/bin/env bash
# Renders the workbench as a user sees it after the quickstart, into docs/images/:
#   1. set-up and build (as README command 1), 2. `pha quickstart` headless (skipped when the
#   quickstart's three runs already finished), 3. the window under Xvfb showing the pha-tiny
#   run with the three runs compared, 4. screenshots with ImageMagick's `import`.
# Options: --steps N (shorter quickstart), --out DIR (default docs/images).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/docs/images"
STEPS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --steps) STEPS=(--steps "$2"); shift 2 ;;
    --out) OUT=$2; shift 2 ;;
    *) echo "screenshot.sh: unknown option $1 (allowed: --steps N, --out DIR)" >&2; exit 2 ;;
  esac
done
"$ROOT/installer/setup.sh"
# shellcheck source=installer/build.sh
source "$ROOT/installer/build.sh"
pha_build default
PHA="$ROOT/build/default/app/cli/pha"
GUI="$ROOT/build/default/app/gui/pha-workbench"
DATA=${PHA_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/pha-workbench}
[ -n "${PHA_DATA_DIR:-}" ] && DATA=$PHA_DATA_DIR
PROJECT="$DATA/projects/quickstart"

finished=$("$PHA" runs list --project "$PROJECT" 2>/dev/null | grep -c finished || true)
if [ "${finished:-0}" -lt 3 ]; then
  "$PHA" quickstart --dir "$PROJECT" "${STEPS[@]}"
fi

mkdir -p "$OUT"
display=:97
Xvfb "$display" -screen 0 1600x1000x24 >/dev/null 2>&1 &
xvfb=$!
trap 'kill $gui $xvfb 2>/dev/null || true' EXIT
sleep 1
DISPLAY=$display "$GUI" "$PROJECT" --compare --run pha-tiny >/dev/null 2>&1 &
gui=$!
sleep 6
DISPLAY=$display import -window root "$OUT/workbench-quickstart.png"
echo "[screenshot] $OUT/workbench-quickstart.png"
kill $gui 2>/dev/null || true
# The Efficiency dock, when the project's store holds profiler rows (pha bench --project).
if "$PHA" runs list --project "$PROJECT" 2>/dev/null | grep -q "profile: "; then
  DISPLAY=$display "$GUI" "$PROJECT" --run pha-tiny --show-dock dock.efficiency >/dev/null 2>&1 &
  gui=$!
  sleep 6
  DISPLAY=$display import -window root "$OUT/workbench-efficiency.png"
  echo "[screenshot] $OUT/workbench-efficiency.png"
fi
