"""What the tests that build a package with pip (the scaffold's install, darkroad's own wheel) ask
of this environment."""

from __future__ import annotations

import importlib.metadata as md
import importlib.util


def builds_offline(setuptools: tuple[int, int] = (64, 0)) -> bool:
    """Whether this environment can build a package whose build needs ``setuptools`` (the
    generated pyproject.toml's 64 by default) without downloading it: pip then builds with it
    (``--no-build-isolation``) rather than in a build environment it makes for the one build
    (the test extras bring a setuptools for it)."""
    try:
        version = tuple(int(x) for x in md.version("setuptools").split(".")[:2])
    except (md.PackageNotFoundError, ValueError):
        return False
    return version >= max(setuptools, (70, 1)) or (version >= setuptools and importlib.util.find_spec("wheel") is not None)
