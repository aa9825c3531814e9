"""Yedl's Workshop (rulebook p. 15): upgrade 1 good in your storage from the basic side to
the upgraded side; gain 1 lantern.

Double-sided tile 5 with The Frosted Filigree (docs/content.md, "Double-sided building tiles"); one of the rulebook's
first-game buildings (p. 4). Without a basic good in storage only the lantern is gained.
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "yedls_workshop"


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("building", ID, "Yedl's Workshop",
                      "Upgrade 1 good in your storage from the basic side to the upgraded side. Gain 1 lantern "
                      "from the supply.", {"tile": 5, "first_game": True})]


@hookimpl
def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
    if building != ID:
        return None
    ctx.gain_effects(seat, ["upgrade_good", "lantern:1"], source=ID)
    return True
