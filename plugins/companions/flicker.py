"""Flicker, a stray companion (rulebook p. 17, "Companions"): for 1 blazing quartz
(returned to the supply), "if you choose to take a shortcut while traveling this turn,
you may ignore the lantern cost"; then Flicker passes to the player on the left.

Offered only while the owner can still declare a caravan route this turn.
"""

from __future__ import annotations

from darkroad.core import Ctx, hookimpl
from darkroad.core import adjacent_districts as adjacent
from darkroad.plugins.companions import kit

ID = "flicker"
FREE_FLAG = ID
"""Its key of ``game.turn.extra``: the seat whose shortcut is free this turn."""
YURGS = "yurgs_excursions"
CARAVAN_STEPS = {YURGS, "caravan_companion", "caravan_route"}


def caravan_ahead(ctx: Ctx, seat: int) -> bool:
    """Whether ``seat`` may still declare a caravan route this turn: at Yurg's Excursions
    now, or with an activation left and Yurg's Excursions reachable (adjacent, or the
    move still to come)."""
    g = ctx.game
    if g.turn.caravan is not None:
        return False
    mine = [t for t in g.stack if t.seat == seat]
    if any(t.kind in CARAVAN_STEPS for t in mine):
        return True
    activate = next((t for t in reversed(mine) if t.kind == "activate"), None)
    if activate is None:
        return False
    done = activate.data.get("done", ())
    illuminated = any(d.kind == "illuminated" for d in ctx.player(seat).pool)
    if YURGS in done or (done and not illuminated):
        return False
    return any(t.kind == "move" for t in mine) or YURGS in adjacent(ctx.player(seat).position)


@hookimpl
def darkroad_shortcut_cost(ctx: Ctx, seat: int) -> int | None:
    return 0 if ctx.game.turn.extra.get(FREE_FLAG) == seat else None


class Flicker(kit.Companion):
    """Flicker's ability: this turn's shortcut is free."""

    def usable(self, ctx: Ctx, seat: int, ability: int) -> bool:
        return caravan_ahead(ctx, seat)

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        ctx.game.turn.extra[FREE_FLAG] = seat


companion = Flicker(kit.stray(ID, "Flicker", "Shortcut at no cost.", kit.QUARTZ))

darkroad_components = companion.components
darkroad_companion_options = companion.companion_options
darkroad_companion_use = companion.companion_use
