# Sourced by scripts/serve and scripts/test: make sure ./.venv exists and holds darkroad.
# A stock Debian/Ubuntu Python refuses a bare `pip install` (PEP 668, "externally managed"),
# so everything goes into a project virtualenv; Debian also ships venv's ensurepip separately
# (python3-venv), which is installed here when `python3 -m venv` cannot create one.
# Usage: VENV_EXTRAS=test . scripts/_venv.sh   (extras optional); sets $VENV_PY.

_as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_install() {  # apt_install PKG...: Debian packages, quietly, only when apt-get exists
  command -v apt-get >/dev/null 2>&1 || { echo "please install: $*" >&2; return 1; }
  echo "== installing $* (Debian packages)" >&2
  _as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive _as_root apt-get install -y -qq "$@" >/dev/null
}

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "== creating .venv" >&2
  rm -rf .venv
  # Without pip when $PY has a pip to install uv into it with (below): uv then installs pip in its
  # one pass. The venv's ensurepip took 3.4 s of CPU (8-11 s of a loaded machine's wall) at the
  # start of a clean clone's CI, before anything else could start.
  if "$PY" -m pip --version >/dev/null 2>&1 && "$PY" -m venv --without-pip .venv >/dev/null 2>&1; then
    :
  elif ! "$PY" -m venv .venv >/dev/null 2>&1; then
    rm -rf .venv
    pyver=$("$PY" -c 'import sys; print(f"{sys.version_info[0]}.{sys.version_info[1]}")')
    apt_install "python${pyver}-venv" || apt_install python3-venv
    "$PY" -m venv .venv
  fi
fi
VENV_PY=.venv/bin/python

_uv_into_venv() {  # uv into .venv: by its own pip, by $PY's (pip >= 22.3's --python), or by a pip made now
  "$VENV_PY" -m pip install -q uv >/dev/null 2>&1 && return 0
  "$PY" -m pip --python "$VENV_PY" install -q uv >/dev/null 2>&1 && return 0
  "$VENV_PY" -m ensurepip -q >/dev/null 2>&1 && "$VENV_PY" -m pip install -q uv >/dev/null 2>&1
}
# uv once a machine: a clean clone's .venv is new each time, and pip installing uv into it held
# up everything else at the start of a clean clone's run. Nothing runs uv but the
# install below, so one copy serves every clone: a venv of its own in the user's cache (made under
# a lock, moved into place whole). Sets $_uv; fails without a writable cache or a pip to make it.
_uv_cached() {
  local home
  home="${XDG_CACHE_HOME:-${HOME:-/nonexistent}/.cache}/darkroad-uv"
  if [ ! -x "$home/bin/uv" ]; then
    mkdir -p "${home%/*}" 2>/dev/null || return 1
    ( flock 8 && { [ -x "$home/bin/uv" ] || { rm -rf "$home.new" && "$PY" -m venv --without-pip "$home.new" \
        && "$PY" -m pip --python "$home.new/bin/python" install -q uv && rm -rf "$home" && mv "$home.new" "$home"; }; }
    ) 8>"$home.lock" >/dev/null 2>&1 || return 1
  fi
  _uv="$home/bin/uv"
}
_uv_install() { "$_uv" pip install -q --python "$VENV_PY" --upgrade pip "${_targets[@]}"; }
_extras=${VENV_EXTRAS:-}
# Reinstall only when pyproject.toml changed since the last install (a stamp in .venv); the
# editable folders of $VENV_EDITABLES (scripts/test: the example fan pack) likewise by theirs.
_stamp=".venv/.darkroad-installed${_extras:+-$_extras}"
_targets=()
if [ ! -f "$_stamp" ] || [ pyproject.toml -nt "$_stamp" ]; then _targets+=(-e ".${_extras:+[$_extras]}"); fi
for _editable in ${VENV_EDITABLES:-}; do
  _editable=${_editable%/}
  [ -f "$_editable/pyproject.toml" ] || continue
  _estamp=".venv/.installed-$(basename "$_editable")"
  if [ ! -f "$_estamp" ] || [ "$_editable/pyproject.toml" -nt "$_estamp" ]; then _targets+=(-e "$_editable"); fi
done
if [ "${#_targets[@]}" -gt 0 ]; then
  echo "== installing darkroad${_extras:+[$_extras]} ${VENV_EDITABLES:-} into .venv" >&2
  # uv (a PyPI package) resolves and installs everything in one pass, from its cache in a few
  # seconds of CPU; pip took a minute of a clean clone's CI (22 s of CPU, ~100 packages, the
  # editable builds one after the other). The same packages either way (PyPI's newest within
  # pyproject's bounds); pip is upgraded in the same pass, since tests run `python -m pip`.
  # Without uv, or when uv fails (it reads PyPI only, not pip's configured indexes), pip as before.
  # The machine's uv first; should it fail (a cache gone bad), a uv of this venv's own.
  if { _uv_cached && _uv_install; } || { _uv_into_venv && [ -x .venv/bin/uv ] && _uv=.venv/bin/uv && _uv_install; }; then
    :
  else
    # A venv made without pip gets one: by its ensurepip, or, where Debian ships ensurepip apart
    # (python3-venv not installed, python3-pip installed), by $PY's pip installing into it.
    "$VENV_PY" -m pip --version >/dev/null 2>&1 || "$VENV_PY" -m ensurepip -q >/dev/null 2>&1 \
      || "$PY" -m pip --python "$VENV_PY" install -q pip
    "$VENV_PY" -m pip install -q --upgrade pip >/dev/null
    "$VENV_PY" -m pip install -q "${_targets[@]}"
  fi
  touch "$_stamp"
  for _editable in ${VENV_EDITABLES:-}; do
    _editable=${_editable%/}
    [ -f "$_editable/pyproject.toml" ] && touch ".venv/.installed-$(basename "$_editable")"
  done
fi
