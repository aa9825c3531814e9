"""The base game's card data: goods, towns, heroes, commissions, events, board tiles.

A content pack read from the JSON files beside this module (see docs/content.md: the
card faces are a reconstruction; replace the JSON to play with the real ones).
"""

from __future__ import annotations

import json
from functools import cache
from importlib.resources import files
from typing import Any

from darkroad.core import hookimpl

FILES = ("goods", "towns", "heroes", "commissions", "events", "board", "private_concern")


@cache
def pack() -> dict[str, Any]:
    out: dict[str, Any] = {}
    data = files(__package__) / "data"
    for name in FILES:
        out.update(json.loads((data / f"{name}.json").read_text(encoding="utf-8")))
    return out


@hookimpl
def darkroad_content() -> dict[str, Any]:
    return pack()
