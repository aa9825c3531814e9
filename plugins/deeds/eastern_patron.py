"""Patron of the East: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
The east pays its heroes in both coins and prestige, so its patron pays victory points.
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

from ._base import Deed, region_deliveries

ID = "eastern_patron"
DEED = Deed(
    ID, "Patron of the East",
    "you have delivered at least 3 commissions or heroes, in any mix, to Cursecairn and Nightpoem",
    region_deliveries("east"), need=3, reward="vp", amount=3,
)


@hookimpl
def darkroad_components() -> list[Component]:
    return [DEED.component()]


@hookimpl
def darkroad_deed_score(ctx: Ctx, seat: int, deed: str) -> dict[str, int] | None:
    return DEED.score(ctx, seat) if deed == ID else None
