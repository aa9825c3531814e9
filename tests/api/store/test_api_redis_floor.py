"""The ``redis`` and ``hiredis`` floors of ``pyproject.toml`` run, and so does the newest
redis-py the project is tested with: CI installs exactly those versions into a directory of
their own and runs the store against a real Redis with them (``floor_smoke.py``), so a version
the code no longer fits fails here, not in production. The store's adapter module
(``darkroad.api.store.redis_adapter``, which drives redis-py's connections itself) is tested so
against both ends (issue 39)."""

from __future__ import annotations

import importlib.metadata as md
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from apiutil import RedisServer, pip_target
from packaging.version import Version

ROOT = Path(__file__).resolve().parents[3]


def _requirement(package: str) -> re.Match[str]:
    """``package``'s requirement in pyproject.toml's dependencies: its floor and any ceiling."""
    found = re.search(
        rf'"{re.escape(package)}(?:\[[^\]]*\])?>=([0-9.]+)(?:,<([0-9.]+))?"', (ROOT / "pyproject.toml").read_text()
    )
    assert found, f"pyproject.toml names no floor for {package}"
    return found


def floor(package: str) -> str:
    """The ``>=`` version of ``package`` in pyproject.toml's dependencies."""
    return _requirement(package).group(1)


NEWEST = {"redis": "8.1.0", "hiredis": "3.5.0"}
"""The newest ``redis`` and ``hiredis`` the store is tested with (raise it with an upgrade)."""


def test_redis_is_capped_below_the_next_major_version_after_the_newest_tested() -> None:
    """A redis-py the adapter was never run on does not reach users: pyproject's ceiling is the
    next major version after ``NEWEST`` (raise both together)."""
    ceiling = _requirement("redis").group(2)
    assert ceiling is not None, "pyproject.toml gives redis no ceiling"
    assert Version(ceiling) == Version(f"{Version(NEWEST['redis']).major + 1}")


@pytest.mark.slow
@pytest.mark.parametrize("end", ["floor", "newest"])
def test_the_store_runs_on_the_floor_and_newest_versions(
    end: str, redis_server: RedisServer, redis_url: str, tmp_path: Path
) -> None:
    versions = {"redis": floor("redis"), "hiredis": floor("hiredis")} if end == "floor" else NEWEST
    env = dict(os.environ)
    # The environment's own redis-py and hiredis when they are those versions (a clean clone's are
    # NEWEST until newer ones come out): a second copy took a pip run (1.2 s of CPU) and proved
    # nothing more. Else those versions, installed here; the smoke reports the versions it ran on.
    if any(Version(md.version(package)) != Version(wanted) for package, wanted in versions.items()):
        # Installed once into the user's cache (apiutil.pip_target), or here without one.
        target = pip_target([f"redis=={versions['redis']}", f"hiredis=={versions['hiredis']}"], [], tmp_path)
        env["PYTHONPATH"] = str(target)  # before site-packages: these versions win
    run = subprocess.run(
        [sys.executable, str(Path(__file__).with_name("floor_smoke.py")), redis_url],
        capture_output=True, text=True, env=env, timeout=120,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr
    ran = re.fullmatch(r"redis (\S+), hiredis (\S+): ok", run.stdout.strip())
    assert ran, run.stdout
    assert (Version(ran[1]), Version(ran[2])) == (Version(versions["redis"]), Version(versions["hiredis"]))
    print(run.stdout.strip())
