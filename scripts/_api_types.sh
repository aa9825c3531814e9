# Sourced by scripts/build-web and scripts/check-ts-client: `api_types WORK OUT SCRIPT` writes to OUT
# the API's types, generated from openapi/openapi.json by the openapi-typescript of WORK's npm
# packages; any generator warning fails (SCRIPT names the script in the message).
#
# Both scripts generate the same file from the same document (one openapi-typescript version in
# both lock files). A generation that warned of nothing is kept in the user's cache
# (darkroad-tsc/types-KEY.ts, KEY a hash of the document and the versions of the generator and
# of the packages it generates with), and a run
# with the same document and generator copies it rather than generating it again (about 2.4 s of
# CPU a run of either script). A changed document, or another generator, generates again.
# One generation at a time (flock on darkroad-tsc/types.lock, held through it): the suite runs both
# scripts on two workers, often at once (a clean clone's CI started them 5 s apart), and from an
# empty cache both generated; now the second waits and copies the first's.
api_types() {
  local work=$1 out=$2 script=$3
  local version key dir
  version=$(node -p "require('./$work/node_modules/openapi-typescript/package.json').version")
  # The generator's own dependencies (@redocly/openapi-core, typescript) shape its output and its
  # warnings too: their installed versions are in the key.
  local deps
  deps=$(cd "$work" && node -p "['@redocly/openapi-core', 'typescript'].map(p => p + ' ' + \
    require(require.resolve(p + '/package.json', {paths: [require.resolve('openapi-typescript')]})).version).join(', ')")
  key=$({ cat openapi/openapi.json; echo "openapi-typescript $version ($deps)"; } | sha256sum | cut -c1-16)
  dir="${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/darkroad-tsc"
  local fd=
  if command -v flock >/dev/null && mkdir -p "$dir" 2>/dev/null && exec {fd}>>"$dir/types.lock"; then
    flock "$fd"
  else
    fd=
  fi
  if cp "$dir/types-$key.ts" "$out" 2>/dev/null; then  # kept whole (moved into place), or not there
    touch "$dir/types-$key.ts" 2>/dev/null || true  # used: kept another week
    echo "openapi-typescript $version: $out as generated from this document before ($dir/types-$key.ts)"
    [ -z "$fd" ] || exec {fd}>&-
    return 0
  fi
  "$work/node_modules/.bin/openapi-typescript" openapi/openapi.json --output "$out" 2>&1 | tee "$work/generate.log"
  if grep -Eiv '^(✨ openapi-typescript|🚀 )' "$work/generate.log" | grep -q .; then
    echo "$script: openapi-typescript warned (above)" >&2
    [ -z "$fd" ] || exec {fd}>&-
    return 1
  fi
  # Kept under a name of its own, then moved into place whole; types unused for a week go (the
  # two scripts may generate with different packages: each keeps its own).
  if mkdir -p "$dir" 2>/dev/null && cp "$out" "$dir/types-$key.ts.$$" 2>/dev/null; then
    find "$dir" -maxdepth 1 -name 'types-*.ts' -mtime +7 -delete 2>/dev/null || true
    mv "$dir/types-$key.ts.$$" "$dir/types-$key.ts"
  fi
  [ -z "$fd" ] || exec {fd}>&-
  return 0
}
