"""Secret Compartment, a wagon upgrade (rulebook p. 19, "Wagon Upgrades").

"Goes in your wagon storage and must stay there for the remainder of the game. You may
reposition it at any time, but you may not discard it to make room in your storage area."

The rulebook names no upgrade tile and does not say what the storage tile does; these
are our content decisions (docs/content.md, "The storage wagon upgrade"):

* the tile is a 1x2 domino placed in the main 6x5 storage grid (it takes 2 cells, in any
  orientation, and moves freely like any good: the packing check places it);
* it holds any 2 goods, one each, whatever their shape (two "any good" slots, like a
  hero's storage icon);
* it is not a good, so it is never among the goods a player can discard.
"""

from __future__ import annotations

from typing import Any

from darkroad.core import Component, Ctx, hookimpl

ID = "secret_compartment"
TILE = [[0, 0], [0, 1]]
SLOTS = 2


@hookimpl
def darkroad_components() -> list[Component]:
    return [Component("upgrade", ID, "Secret Compartment",
                      "Goes in your wagon storage and must stay there for the remainder of the game. You may "
                      "reposition it at any time, but you may not discard it to make room in your storage area. "
                      "(A 1x2 tile in your storage grid that holds any 2 goods.)",
                      {"goes_in": "wagon storage", "shape": TILE, "any_slots": SLOTS})]


@hookimpl
def darkroad_storage_extensions(ctx: Ctx, seat: int) -> list[dict[str, Any]] | None:
    if not ctx.owns(seat, ID):
        return None
    return [{"fixed_tile": TILE, "any_slots": SLOTS}]
