# Sourced by the run scripts: configure and build one CMake preset, quietly, with ccache.
# CCACHE_BASEDIR makes the cache hit across clones in different folders (CI clones afresh).
pha_build() {
  local preset=$1
  local log="$ROOT/build/build-$preset.log"
  export CCACHE_BASEDIR="$ROOT"
  export CCACHE_NOHASHDIR=1
  mkdir -p "$ROOT/build"
  echo "[build] preset '$preset' (log: $log)"
  if ! (cd "$ROOT" && cmake --preset "$preset" && cmake --build --preset "$preset" -j "$(nproc)") >"$log" 2>&1; then
    tail -n 60 "$log" >&2
    echo "[build] preset '$preset' failed; full log: $log" >&2
    return 1
  fi
}
