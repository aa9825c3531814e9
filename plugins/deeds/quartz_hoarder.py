"""Quartz Hoarder: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Blazing quartz is otherwise worth nothing at the end; the deed competes with companion gifts for
it and with horseshoes for the inventory slots.
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

from ._base import Deed, quartz

ID = "quartz_hoarder"
DEED = Deed(
    ID, "Quartz Hoarder", "you have at least 3 blazing quartz",
    quartz, need=3, reward="prestige", amount=5,
)


@hookimpl
def darkroad_components() -> list[Component]:
    return [DEED.component()]


@hookimpl
def darkroad_deed_score(ctx: Ctx, seat: int, deed: str) -> dict[str, int] | None:
    return DEED.score(ctx, seat) if deed == ID else None
