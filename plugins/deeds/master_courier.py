"""Master Courier: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Commissions are the main source of prestige; five deliveries with only 3 commission slots takes
a steady supply of commissions from early on.
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

from ._base import Deed, commissions_delivered

ID = "master_courier"
DEED = Deed(
    ID, "Master Courier", "you have delivered at least 5 commissions",
    commissions_delivered, need=5, reward="vp", amount=4,
)


@hookimpl
def darkroad_components() -> list[Component]:
    return [DEED.component()]


@hookimpl
def darkroad_deed_score(ctx: Ctx, seat: int, deed: str) -> dict[str, int] | None:
    return DEED.score(ctx, seat) if deed == ID else None
