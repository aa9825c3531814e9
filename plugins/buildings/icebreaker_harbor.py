"""Icebreaker Harbor (rulebook p. 15): gain 1 basic good of a type not currently on the market wheel.

Double-sided tile 2 with Merchant's Guildhall (docs/content.md, "Double-sided building tiles"). "Not available on the
market wheel" means no market die shows that type now (dice bought this turn are set
aside until Rest, so their types count as not available).
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "icebreaker_harbor"


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("building", ID, "Icebreaker Harbor",
                      "Gain 1 basic good from the supply of any type that is not currently available on "
                      "the market wheel.", {"tile": 2})]


@hookimpl
def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
    if building != ID:
        return None
    ctx.gain_effects(seat, ["good:not_on_wheel"], source=ID)
    return True
