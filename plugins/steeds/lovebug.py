"""Lovebug (rulebook p. 17, Steeds): when you visit Yurg's Excursions, gain 1 lantern.

The published Hungarian/English rulebook narrows it in its note on Lovebug ("Megjegyzés
Lovebug paripához": you gain the lantern only when you start the travel; not when you join
another player's, nor for the Ruins of Yin): the lantern comes only when you lead a caravan
(docs/content.md, timing ruling 17).
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "lovebug"


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("steed", ID, "Lovebug", "When you lead a caravan from Yurg's Excursions, gain 1 lantern "
                      "from the supply.")]


@hookimpl
def darkroad_excursion(ctx: Ctx, seat: int, choice: str) -> None:
    if choice == "caravan" and ctx.owns(seat, ID):
        ctx.gain_effects(seat, ["lantern:1"], source=ID)
