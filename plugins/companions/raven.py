"""Raven, a loyal companion (rulebook p. 16, "Companions"): gain 1 illuminated die (rolled,
into the special reserve) / roll the oracle die and gain the reward shown.

The oracle die is the Oracle of Lumi's (its faces are that building's ``oracle_die``
data); without that building installed the second ability is not offered.
"""

from __future__ import annotations

from collections.abc import Sequence

from darkroad.core import Ctx
from darkroad.plugins.companions import kit

ID = "raven"
ORACLE = "oracle_of_lumi"
ILLUMINATED, ORACLE_DIE = 0, 1


def oracle_faces(ctx: Ctx) -> Sequence[Sequence[str]]:
    comp = ctx.content.components.get(ORACLE)
    return comp.data.get("oracle_die", ()) if comp is not None else ()


class Raven(kit.Companion):
    """The Raven's abilities: an illuminated die / the oracle die."""

    def usable(self, ctx: Ctx, seat: int, ability: int) -> bool:
        if ability == ORACLE_DIE:
            return bool(oracle_faces(ctx))
        p = ctx.player(seat)
        held = len(p.special) + sum(1 for d in p.pool if d.kind == "illuminated")
        return held < ctx.capacity(seat, "illuminated")

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        source = f"companion:{card}"
        if ability == ILLUMINATED:
            ctx.gain_effects(seat, ["illuminated"], source=source)
            return
        faces = oracle_faces(ctx)
        face = list(faces[ctx.randbelow(len(faces))])
        ctx.emit("oracle_die_rolled", seat, face=face, source=source)
        ctx.gain_effects(seat, face, source=source)


companion = Raven(kit.loyal(ID, "Raven", [
    "Gain 1 illuminated die from the supply. Roll the die and place it in your special reserve.",
    "Roll the oracle die and gain the reward shown.",
]))

darkroad_components = companion.components
darkroad_companion_options = companion.companion_options
darkroad_companion_use = companion.companion_use
