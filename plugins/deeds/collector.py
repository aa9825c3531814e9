"""Collector: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Goods are worth nothing at the end; keeping one of each type costs storage space and deliveries.
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

from ._base import Deed, good_types

ID = "collector"
DEED = Deed(
    ID, "Collector", "your storage holds a good of every one of the 6 types",
    good_types, need=6, reward="vp", amount=3,
)


@hookimpl
def darkroad_components() -> list[Component]:
    return [DEED.component()]


@hookimpl
def darkroad_deed_score(ctx: Ctx, seat: int, deed: str) -> dict[str, int] | None:
    return DEED.score(ctx, seat) if deed == ID else None
