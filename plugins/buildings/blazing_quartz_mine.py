"""Blazing Quartz Mine (rulebook p. 15): gain 1 blazing quartz from the supply."""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "blazing_quartz_mine"


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("building", ID, "Blazing Quartz Mine", "Gain 1 blazing quartz from the supply.",
                      {"tile": 1, "first_game": True})]


@hookimpl
def darkroad_activate_building(ctx: Ctx, seat: int, building: str) -> bool | None:
    if building != ID:
        return None
    ctx.gain_effects(seat, ["quartz:1"], source=ID)
    return True
