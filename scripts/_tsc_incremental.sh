# Sourced by scripts/build-web and scripts/check-ts-client: `tsc_incremental NAME WORK KEEP ARGS...`
# runs TypeScript's tsc in WORK (node_modules/.bin/tsc ARGS...) incrementally, its build state
# kept between runs and between clones in the user's cache (darkroad-tsc/NAME). KEEP names a
# folder of WORK that tsc writes (its outDir; "" for a --noEmit project), kept with the state.
#
# tsc --incremental records each file's hash, its diagnostics and what it emitted
# (--tsBuildInfoFile, paths relative to WORK, so one clone's state serves another's WORK); the
# next run checks and emits again only the files whose contents changed and those that depend on
# them, and a changed compiler, option or lib checks everything again. So a document or a client
# changed since is checked as before; the same bytes are not checked twice on one machine (as Go's
# build cache does for scripts/check-go-client). Unchanged, tsc then re-emits nothing, hence KEEP.
# The state is saved after a successful run only, moved into place whole; without a writable
# cache, tsc runs as it is.
tsc_incremental() {
  local name=$1 work=$2 keep=$3
  shift 3
  local cache="${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/darkroad-tsc/$name"
  if [ -f "$cache/tsbuildinfo" ]; then
    cp "$cache/tsbuildinfo" "$work/.tsbuildinfo"
    if [ -n "$keep" ] && [ -d "$cache/$keep" ]; then
      rm -rf "${work:?}/$keep"
      cp -r "$cache/$keep" "$work/$keep"
    fi
  fi
  (cd "$work" && node_modules/.bin/tsc "$@" --incremental --tsBuildInfoFile .tsbuildinfo) || return
  local saved
  if mkdir -p "$(dirname "$cache")" 2>/dev/null && saved=$(mktemp -d "$cache.XXXXXX" 2>/dev/null); then
    cp "$work/.tsbuildinfo" "$saved/tsbuildinfo"
    [ -z "$keep" ] || cp -r "$work/$keep" "$saved/$keep"
    rm -rf "$cache"
    mv "$saved" "$cache" 2>/dev/null || rm -rf "$saved"  # another run's state moved in first: either serves
  fi
  return 0
}
