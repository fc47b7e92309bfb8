#!/usr/bin/env bash
# Downloads (here, on the Debian 12 build machine, which reaches Debian's mirrors) the .deb
# files of the header-only and small libraries the headless engine needs, into
# build/gpu-debs/, for a GPU machine that has CUDA, CMake and a Python torch but no network and
# no Debian packages (installer/gpu-check.sh unpacks them there with dpkg-deb, no root needed).
# Carry build/gpu-debs to the GPU machine next to the source tree.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
OUT="$ROOT/build/gpu-debs"
PKGS=(
  nlohmann-json3-dev libcli11-dev libfmt-dev libfmt9 libspdlog-dev libspdlog1.10
  libpcre2-dev libpcre2-8-0 libpcre2-16-0 libpcre2-32-0 libpcre2-posix3
  libsqlite3-dev libsqlite3-0 libgtest-dev libgmock-dev
  ninja-build pkgconf pkgconf-bin libpkgconf3
)
mkdir -p "$OUT"
cd "$OUT"
apt-get download "${PKGS[@]}" >/dev/null
ls -1 "$OUT"/*.deb | wc -l | xargs echo "[gpu-debs] .deb files in $OUT:"
