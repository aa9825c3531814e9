"""Longshadow (rulebook p. 17, Steeds): when you use an illuminated die, you may choose
any 1 of the 4 buildings to activate, not just the connected building."""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "longshadow"


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("steed", ID, "Longshadow", "When you use an illuminated die, you may choose any 1 of the 4 "
                      "buildings to activate, not just the connected building.")]


@hookimpl
def darkroad_building_targets(ctx: Ctx, seat: int, connected: str | None) -> list[str] | None:
    return list(ctx.game.board.buildings) if ctx.owns(seat, ID) else None
