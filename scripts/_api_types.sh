# Sourced by scripts/build-web and scripts/check-ts-client: `api_types WORK OUT SCRIPT` writes to OUT
# the API's types, generated from openapi/openapi.json by the openapi-typescript of WORK's npm
# packages; any generator warning fails (SCRIPT names the script in the message).
#
# Both scripts generate the same file from the same document (one openapi-typescript version in
# both lock files). A generation that warned of nothing is kept in the user's cache
# (darkroad-tsc/types-KEY.ts, KEY a hash of the document and the generator's version), and a run
# with the same document and generator copies it rather than generating it again (about 2.4 s of
# CPU a run of either script). A changed document, or another generator, generates again.
api_types() {
  local work=$1 out=$2 script=$3
  local version key dir
  version=$(node -p "require('./$work/node_modules/openapi-typescript/package.json').version")
  key=$({ cat openapi/openapi.json; echo "openapi-typescript $version"; } | sha256sum | cut -c1-16)
  dir="${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/darkroad-tsc"
  if [ -f "$dir/types-$key.ts" ]; then
    cp "$dir/types-$key.ts" "$out"
    echo "openapi-typescript $version: $out as generated from this document before ($dir/types-$key.ts)"
    return 0
  fi
  "$work/node_modules/.bin/openapi-typescript" openapi/openapi.json --output "$out" 2>&1 | tee "$work/generate.log"
  if grep -Eiv '^(✨ openapi-typescript|🚀 )' "$work/generate.log" | grep -q .; then
    echo "$script: openapi-typescript warned (above)" >&2
    return 1
  fi
  # Kept under a name of its own, then moved into place whole; the other documents' types go.
  if mkdir -p "$dir" 2>/dev/null && cp "$out" "$dir/types-$key.ts.$$" 2>/dev/null; then
    find "$dir" -maxdepth 1 -name 'types-*.ts' ! -name "types-$key.ts" -delete 2>/dev/null || true
    mv "$dir/types-$key.ts.$$" "$dir/types-$key.ts"
  fi
  return 0
}
