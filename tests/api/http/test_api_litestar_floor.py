"""The ``litestar`` floor of ``pyproject.toml`` runs, and so does the newest Litestar the project
is tested with: each is installed into a directory of its own (``pip --target``, without its
dependencies: those of the environment) and the app's action route runs on it
(``litestar_smoke.py``): served by the adapter that calls into Litestar's handler, request and
response objects itself (``darkroad.api.http.action_route``, issue 39), and answering every request
of the action table as Litestar's own route does, byte for byte. As
``tests/api/store/test_api_redis_floor.py`` does for the store's redis-py adapter."""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from apiutil import pip_target
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[3]
NEWEST = "2.25.0"
"""The newest Litestar the app is tested with (raise it with an upgrade)."""


def floor() -> str:
    """The ``>=`` version of ``litestar`` in pyproject.toml's dependencies."""
    found = re.search(r'"litestar(?:\[[^\]]*\])?>=([0-9.]+)"', (ROOT / "pyproject.toml").read_text())
    assert found, "pyproject.toml names no floor for litestar"
    return found.group(1)


@pytest.mark.slow
@pytest.mark.parametrize("end", ["floor", "newest"])
def test_the_action_route_runs_on_the_floor_and_newest_litestar(end: str, tmp_path: Path) -> None:
    wanted = floor() if end == "floor" else NEWEST
    # The environment's own Litestar when it is that version (a clean clone installs the newest
    # pyproject allows, which is NEWEST until a newer one comes out): installing a second copy of
    # it took a pip run (1.2 s of CPU) and proved nothing more. Else that version, installed here.
    where = "site-packages"
    env = dict(os.environ)
    if Version(md.version("litestar")) != Version(wanted):
        # Installed once into the user's cache (apiutil.pip_target), or here without one.
        target = pip_target([f"litestar=={wanted}"], ["--no-deps"], tmp_path)
        where, env["PYTHONPATH"] = target.name, str(target)  # before site-packages: this version wins
    run = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("litestar_smoke.py"))],
        capture_output=True, text=True, env=env, timeout=300,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-4000:]
    ran = re.fullmatch(r"litestar (\S+) \((\S+)\): (\d+) requests ok", run.stdout.strip())
    assert ran, run.stdout
    assert Version(ran[1]) == Version(wanted) and ran[2] == where, run.stdout  # that one, from there
    print(run.stdout.strip())


def test_the_adapter_is_tested_up_to_the_newest_it_serves() -> None:
    """``action_route.NEWEST`` (above it, Litestar serves the route) is the version run here."""
    from darkroad.api.http import action_route

    assert Version(NEWEST).release[:2] == action_route.NEWEST
