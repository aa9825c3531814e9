# Sourced by scripts/build-web and scripts/check-ts-client: `npm_ci WORK` installs the npm packages
# of WORK/package-lock.json into WORK/node_modules as `npm ci` does, from a copy kept in the user's
# cache (darkroad-npm/KEY) when there is one. KEY is a hash of package.json, package-lock.json and
# the node and npm versions: npm ci makes the same node_modules from the same lock file, and a
# changed lock file (or node, or npm) installs again. A clean clone ran npm ci twice (the web
# client's packages and the TypeScript client's) at the start of scripts/test, beside the
# virtualenv's install, ruff and the collection: 7.4 s user + 1.5 s sys of CPU, where the two
# copies take 0.4 s user + 1.8 s sys. One install at a time per KEY (flock); without flock or a writable
# cache, npm ci as before.
npm_ci() {
  local work=$1 key cache fd
  key=$({ cat "$work/package.json" "$work/package-lock.json"; node --version; npm --version; } | sha256sum | cut -c1-16)
  cache="${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/darkroad-npm"
  if ! command -v flock >/dev/null || ! mkdir -p "$cache" 2>/dev/null || ! exec {fd}>>"$cache/$key.lock"; then
    (cd "$work" && npm ci --no-audit --no-fund --loglevel=error)
    return
  fi
  flock "$fd"
  rm -rf "$work/node_modules"
  if [ -d "$cache/$key" ]; then
    cp -R "$cache/$key" "$work/node_modules"
  else
    (cd "$work" && npm ci --no-audit --no-fund --loglevel=error) || { exec {fd}>&-; return 1; }
    rm -rf "$cache/$key.new"
    cp -R "$work/node_modules" "$cache/$key.new" && mv -T "$cache/$key.new" "$cache/$key"
  fi
  exec {fd}>&-
}
