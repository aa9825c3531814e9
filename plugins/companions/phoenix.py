"""Phoenix, a loyal companion (rulebook p. 16, "Companions"): gain 2 lanterns / move the
ruins marker 1 space clockwise and gain the reward shown."""

from __future__ import annotations

from darkroad.core import Ctx
from darkroad.plugins.companions import kit

ID = "phoenix"

LANTERNS = 0


def usable(ctx: Ctx, seat: int, ability: int) -> bool:
    """The lanterns only while a lantern slot is free (an extra lantern is discarded)."""
    if ability == LANTERNS:
        return ctx.player(seat).lanterns < ctx.capacity(seat, "lanterns")
    return True

companion = kit.LoyalEffects(ID, "Phoenix", [
    "Gain 2 lanterns from the supply.",
    "Move the district marker in the ruins 1 space clockwise and gain the reward shown.",
], [["lantern:2"], ["ruins:1"]], usable)

darkroad_components = companion.components
darkroad_companion_options = companion.companion_options
darkroad_companion_use = companion.companion_use
