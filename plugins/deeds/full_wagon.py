"""Full Wagon: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Heroes still on the wagon at the end forgo their town rewards; the coins make up for them.
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

from ._base import Deed, heroes_on_wagon

ID = "full_wagon"
DEED = Deed(
    ID, "Full Wagon", "you have at least 3 heroes on your wagon",
    heroes_on_wagon, need=3, reward="coins", amount=6,
)


@hookimpl
def darkroad_components() -> list[Component]:
    return [DEED.component()]


@hookimpl
def darkroad_deed_score(ctx: Ctx, seat: int, deed: str) -> dict[str, int] | None:
    return DEED.score(ctx, seat) if deed == ID else None
