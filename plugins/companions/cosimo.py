"""Cosimo, a stray companion (rulebook p. 17, "Companions"): for a hero (placed on the
bottom of the hero deck), gain 1 available wagon upgrade OR move the dark market marker
1 space clockwise and gain the reward shown; then Cosimo passes to the player on the left.

The wagon upgrade respects the owner's upgrade limit (1, unless a steed lifts it).
"""

from __future__ import annotations

from darkroad.core import Choice, Ctx, Option, Task, i18n, upgrade_limit
from darkroad.plugins.companions import kit

ID = "cosimo"


def upgrade_available(ctx: Ctx, seat: int) -> bool:
    return bool(ctx.game.board.upgrades) and len(ctx.player(seat).upgrades) < upgrade_limit(ctx, seat)


class CosimoGift(kit.GiftChoice):
    """Which hero to give Cosimo."""

    kind = f"{ID}_gift"
    prompt = i18n.N_("Cosimo: choose the hero to give (to the bottom of the hero deck)")

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        companion.resolve(ctx, seat, card, ability)


class CosimoReward(Choice):
    """A wagon upgrade or the dark market."""

    kind = f"{ID}_reward"
    prompt = i18n.N_("Cosimo: gain a wagon upgrade or move the dark market marker")
    inside_gain = True

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        opts = [("upgrade", "gain 1 available wagon upgrade")] if upgrade_available(ctx, seat) else []
        return opts + [("dark_market", "move the dark market marker 1 space clockwise and gain the reward")]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        if option == "upgrade":
            ctx.push("choose_upgrade", seat)
        else:
            ctx.gain_effects(seat, ["dark_market:1"], source=f"companion:{task.data['card']}")


class Cosimo(kit.Companion):
    """Cosimo's ability: a wagon upgrade or the dark market (always usable: the dark market
    marker can always move and give its reward)."""

    def resolve(self, ctx: Ctx, seat: int, card: str, ability: int) -> None:
        if upgrade_available(ctx, seat):
            ctx.push(CosimoReward.kind, seat, card=card)
        else:
            ctx.gain_effects(seat, ["dark_market:1"], source=f"companion:{card}")


companion = Cosimo(
    kit.stray(ID, "Cosimo", "Gain 1 available wagon upgrade OR move the district marker in the dark market 1 "
                "space clockwise and gain the reward shown.", kit.HERO),
    steps=[CosimoGift(), CosimoReward()], gift_step=CosimoGift.kind,
)

darkroad_components = companion.components
darkroad_steps = companion.steps
darkroad_companion_options = companion.companion_options
darkroad_companion_use = companion.companion_use
