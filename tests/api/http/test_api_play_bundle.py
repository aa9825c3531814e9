"""The committed bundle of ``/play`` (``api/http/play_assets/``) is what ``web/`` builds today.

``scripts/build-web --check`` installs the client's npm packages, generates the API's types
from the committed ``openapi/openapi.json`` with openapi-typescript, type-checks the client
against them (``tsc --strict``: a contract change that breaks the client fails here) and
bundles it with esbuild, then compares the result with the committed files byte for byte.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow
ROOT = Path(__file__).resolve().parents[3]


def test_the_committed_bundle_is_built_from_web() -> None:
    if shutil.which("npm") is None and not os.environ.get("CI"):
        pytest.skip("npm (node >= 20) is not installed")
    run = subprocess.run([str(ROOT / "scripts" / "build-web"), "--check"], capture_output=True, text=True,
                         timeout=600, cwd=ROOT)
    assert run.returncode == 0, run.stdout[-4000:] + run.stderr[-4000:]
    assert "is up to date" in run.stdout
