"""Li'l Dumplin', a stray companion (rulebook p. 17, "Companions"): for a horseshoe
(returned to the supply), roll the ruins die and gain the reward shown; then Li'l
Dumplin' passes to the player on the left."""

from __future__ import annotations

from darkroad.core import Ctx
from darkroad.plugins.companions import kit

ID = "lil_dumplin"


class LilDumplin(kit.Companion):
    """Li'l Dumplin's ability: the ruins die."""

    def usable(self, ctx: Ctx, seat: int, ability: int) -> bool:
        return bool(ctx.content.ruins_die)

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        ctx.gain_effects(seat, ["ruins_die"], source=f"companion:{card}")


companion = LilDumplin(kit.stray(ID, "Li'l Dumplin'", "Roll the ruins die and gain the reward shown.",
                                   kit.HORSESHOE))

darkroad_components = companion.components
darkroad_companion_options = companion.companion_options
darkroad_companion_use = companion.companion_use
