"""Artisan's Bench, a wagon upgrade (rulebook p. 19, "Wagon Upgrades").

"Goes in locked slot #1 and replaces that special action. When you use that special
action, craft an upgraded good instead of a basic good."

The rulebook names no upgrade tile; the name is ours. In the last 3 rounds the slot #1
action gives a basic good of your choice instead of crafting (p. 6), so the bench then
gives an upgraded good of your choice.
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, hookimpl

ID = "artisans_bench"
SLOT = 1


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("upgrade", ID, "Artisan's Bench",
                      "Goes in locked slot #1 and replaces that special action. When you use that special action, "
                      "craft an upgraded good instead of a basic good.", {"goes_in": "locked slot #1"})]


@hookimpl
def darkroad_slot_action(ctx: Ctx, seat: int, slot: int, last_rounds: bool) -> bool | None:
    if slot != SLOT or not ctx.owns(seat, ID):
        return None
    ctx.gain_effects(seat, ["good:any+" if last_rounds else "good:craft+"], source=ID)
    return True
