"""Ruins Lantern, a wagon upgrade (rulebook p. 19, "Wagon Upgrades").

"Goes in a lantern slot. When you travel to the Ruins of Yin, you do not have to spend a
lantern to roll the ruins die. May not be discarded from the lantern storage area."

The rulebook names no upgrade tile; the name is ours. The tile takes one of the 4
lantern slots for good, so its owner holds at most 3 lanterns; a lantern beyond that
when the tile arrives is discarded (an extra lantern is simply discarded, p. 18).
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "ruins_lantern"


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("upgrade", ID, "Ruins Lantern",
                      "Goes in a lantern slot. When you travel to the Ruins of Yin, you do not have to spend a "
                      "lantern to roll the ruins die. May not be discarded from the lantern storage area.",
                      {"goes_in": "lantern slot"})]


@hookimpl
def darkroad_capacity(ctx: Ctx, seat: int, kind: str) -> int | None:
    return -1 if kind == "lanterns" and ctx.owns(seat, ID) else None


@hookimpl
def darkroad_ruins_die_cost(ctx: Ctx, seat: int) -> int | None:
    return 0 if ctx.owns(seat, ID) else None


@hookimpl
def darkroad_upgrade_gained(ctx: Ctx, seat: int, upgrade: str) -> None:
    if upgrade != ID:
        return
    excess = ctx.player(seat).lanterns - ctx.capacity(seat, "lanterns")
    if excess > 0:
        ctx.add(seat, "lanterns", -excess, f"{ID}: no lantern slot")
