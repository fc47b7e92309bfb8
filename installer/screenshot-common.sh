# Sourced by the screenshot scripts that render views of a trained project (screenshot-views.sh,
# screenshot-step24.sh): their shared options and checks.
# screenshot_setup NAME ARGS...: sets ROOT, BUILD, OUT, PROJECT, PHA and GUI from the options
# --build-dir DIR (default build/default), --project DIR (default: the quickstart in the data
# directory, made by `pha quickstart`) and --out DIR (default docs/images); checks that Xvfb,
# xdotool and ImageMagick's import are there and that PROJECT has runs; creates OUT.
screenshot_setup() {
  local name=$1
  shift
  ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
  BUILD="$ROOT/build/default"
  OUT="$ROOT/docs/images"
  local data=${PHA_DATA_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/pha-workbench}
  PROJECT="$data/projects/quickstart"
  while [ $# -gt 0 ]; do
    case "$1" in
      --build-dir) BUILD=$(cd "$2" && pwd); shift 2 ;;
      --project) PROJECT=$2; shift 2 ;;
      --out) OUT=$2; shift 2 ;;
      *) echo "$name: unknown option $1 (allowed: --build-dir DIR, --project DIR, --out DIR)" >&2; exit 2 ;;
    esac
  done
  PHA="$BUILD/app/cli/pha"
  GUI="$BUILD/app/gui/pha-workbench"
  local tool
  for tool in Xvfb xdotool import; do
    command -v "$tool" >/dev/null || { echo "$name: needs $tool (xvfb, xdotool, imagemagick)" >&2; exit 1; }
  done
  [ -f "$PROJECT/runs.sqlite" ] || { echo "$name: $PROJECT has no runs (run pha quickstart first)" >&2; exit 1; }
  mkdir -p "$OUT"
}
