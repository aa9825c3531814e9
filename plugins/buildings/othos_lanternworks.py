"""Otho's Lanternworks (rulebook p. 15): gain 1 basic good with a current value of $1,
1 lantern and 1 prestige.

Double-sided tile 4 with Guildmaster's Mansion (docs/content.md, "Double-sided building tiles"); one of the rulebook's
first-game buildings (p. 4).
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "othos_lanternworks"


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("building", ID, "Otho's Lanternworks",
                      "Gain 1 basic good from the supply with a current value of $1. Gain 1 lantern from the "
                      "supply. Gain 1 prestige.", {"tile": 4, "first_game": True})]


@hookimpl
def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
    if building != ID:
        return None
    ctx.gain_effects(seat, ["good:value1", "lantern:1", "prestige:1"], source=ID)
    return True
