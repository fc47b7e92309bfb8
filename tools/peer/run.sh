#!/usr/bin/env bash
# Runs the PyTorch eager peer (tools/peer/inference_peer.py) with the arguments given.
# Installs Debian's PyTorch first when `import torch` fails: Debian 12's python3-torch 1.13.1,
# the same ATen and OpenBLAS as the engine's LibTorch, so a ratio engine / peer compares the
# code around the same kernels. Needs root (or sudo) for apt-get the first time only.
#
#   tools/peer/run.sh --check
#   tools/peer/run.sh --models pha-tiny --seq-lens 1024,4096 --json /tmp/peer.json
#   tools/peer/run.sh --train --models pha-tiny,transformerpp-tiny
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

# The interpreter: $PEER_PYTHON if set, else the first of python3 (PATH) and /usr/bin/python3
# that imports torch. Debian's python3-torch lives in /usr/lib/python3/dist-packages, which only
# the system interpreter sees (a pyenv or venv python3 on PATH does not).
find_python() {
  local py
  for py in ${PEER_PYTHON:-python3 /usr/bin/python3}; do
    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import torch' >/dev/null 2>&1; then
      echo "$py"
      return 0
    fi
  done
  return 1
}

if ! py="$(find_python)"; then
  echo "run.sh: no python3 here imports torch; installing Debian's python3-torch" >&2
  sudo_cmd=""
  if [ "$(id -u)" -ne 0 ]; then
    if command -v sudo >/dev/null 2>&1; then
      sudo_cmd="sudo"
    else
      echo "run.sh: not root and no sudo: install python3-torch by hand (apt-get install python3-torch)" >&2
      exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  $sudo_cmd apt-get update
  $sudo_cmd apt-get install -y --no-install-recommends python3-torch
  py="$(find_python)" || { echo "run.sh: torch still not importable after the install" >&2; exit 1; }
fi

exec "$py" "$here/inference_peer.py" "$@"
