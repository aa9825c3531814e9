"""Grace, a stray companion (rulebook p. 17, "Companions"): for a potion (basic or
upgraded, returned to the supply), gain 1 available deed and its bonus; then Grace
passes to the player on the left."""

from __future__ import annotations

from darkroad.core import Ctx, i18n
from darkroad.plugins.companions import kit

ID = "grace"
GIFT = "potion"


class GraceGift(kit.GiftChoice):
    """A basic or an upgraded potion for Grace."""

    kind = f"{ID}_gift"
    prompt = i18n.N_("Grace: give a basic or an upgraded potion")

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        companion.resolve(ctx, seat, card, ability)


class Grace(kit.Companion):
    """Grace's ability: a deed and its bonus."""

    def usable(self, ctx: Ctx, seat: int, ability: int) -> bool:
        return kit.can_gain(ctx, seat, "deed")

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        ctx.gain_effects(seat, ["deed"], source=f"companion:{card}")


companion = Grace(kit.stray(ID, "Grace", "Gain 1 available deed and its bonus.", GIFT),
                  steps=[GraceGift()], gift_step=GraceGift.kind)

darkroad_components = companion.components
darkroad_steps = companion.steps
darkroad_companion_options = companion.companion_options
darkroad_companion_use = companion.companion_use
