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
# The state is saved after a successful run only.
tsc_incremental() {
  local name=$1 work=$2 keep=$3
  shift 3
  local cache="${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/darkroad-tsc/$name" fd
  # One run at a time per project (flock on the state's lock, held through tsc): the state and
  # KEEP are then read and written as one snapshot, never one clone's build state with another's
  # output. Without flock or a writable cache, tsc runs as it is, from nothing.
  if ! command -v flock >/dev/null || ! mkdir -p "$cache" 2>/dev/null || ! exec {fd}>>"$cache.lock"; then
    (cd "$work" && node_modules/.bin/tsc "$@")
    return
  fi
  # What tsc reads: its arguments, node's version, the installed packages (node_modules'
  # lock file) and WORK's own .ts and .json files (their names and hashes; not KEEP, which tsc
  # writes). When they are those of the last check that passed (the state saved below), it is not
  # made again: even with nothing changed, tsc --incremental parses the whole program (2.5 s of
  # CPU for each of build-web --check and check-ts-client), and a clean clone of the same code is
  # the same files.
  local inputs
  inputs=$({ printf '%s\n' "$@"; node --version; cd "$work" && cat node_modules/.package-lock.json 2>/dev/null
    find . \( -path ./node_modules ${keep:+-o -path "./$keep"} \) -prune -o -type f \( -name '*.ts' -o -name '*.json' \) \
      -print0 | LC_ALL=C sort -z | xargs -0 -r sha256sum; } | sha256sum | cut -c1-16)
  flock "$fd"
  rm -f "$work/.tsbuildinfo"
  if [ -f "$cache/tsbuildinfo" ] && { [ -z "$keep" ] || [ -d "$cache/$keep" ]; }; then
    cp "$cache/tsbuildinfo" "$work/.tsbuildinfo"
    if [ -n "$keep" ]; then rm -rf "${work:?}/$keep"; cp -r "$cache/$keep" "$work/$keep"; fi
    if [ "$(cat "$cache/inputs" 2>/dev/null)" = "$inputs" ]; then
      echo "tsc: the files of the last check that passed ($cache), not checked again"
      exec {fd}>&-
      return 0
    fi
  fi
  local status=0
  (cd "$work" && node_modules/.bin/tsc "$@" --incremental --tsBuildInfoFile .tsbuildinfo) || status=$?
  rm -f "$cache/tsbuildinfo" "$cache/inputs"  # saved again only after a successful run
  [ -z "$keep" ] || rm -rf "${cache:?}/${keep:?}"
  if [ "$status" = 0 ]; then
    [ -z "$keep" ] || cp -r "$work/$keep" "$cache/$keep"
    cp "$work/.tsbuildinfo" "$cache/tsbuildinfo"  # then: a state without its KEEP is never read
    echo "$inputs" > "$cache/inputs"  # last: inputs without their state and KEEP are never read
  fi
  exec {fd}>&-
  return "$status"
}
