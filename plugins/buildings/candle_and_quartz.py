"""The Candle & Quartz (rulebook p. 15): spend 2 coins or 1 basic good with a current value
of $1, then gain 1 available hero or commission.

Double-sided tile 3 with The Oracle of Lumi (docs/content.md, "Double-sided building tiles"). The hero is gained without a
sale (icon glossary: "gain a hero from the Ringway Inn (but do not sell to them)") and
brings its bonus; "available" heroes and commissions are the ones the core's ``hero`` and
``commission`` effects offer (the inn's heroes and the top of the hero deck; the top
commission of each town's stack). With none available the building costs nothing and
does nothing.
"""

from __future__ import annotations

from darkroad.core import (
    Choice,
    Component,
    Ctx,
    Option,
    Task,
    describe_effect,
    expand_effect,
    good_type,
    i18n,
    is_upgraded,
)
from darkroad.plugins.buildings import kit
from darkroad.plugins.buildings.kit import SpendToGain

ID = "candle_and_quartz"


def gains(ctx: Ctx, seat: int) -> list[str]:
    """The concrete hero and commission effects ``seat`` could gain now."""
    return [*(expand_effect(ctx, seat, "hero") or ()), *(expand_effect(ctx, seat, "commission") or ())]


class Pay(SpendToGain):
    """Spend 2 coins or 1 basic good valued $1, then gain 1 available hero or commission."""

    kind = f"{ID}_pay"
    prompt = i18n.N_("The Candle & Quartz: spend 2 coins or 1 basic good valued $1 to gain a hero or a commission")
    building = ID
    costs = {"coins": 2}
    cost_text = "2 coins or 1 basic good with a current value of $1"

    def payable_goods(self, ctx: Ctx, seat: int) -> list[str]:
        cheap = set(ctx.goods_of_value(1))
        return [g for g in ctx.player(seat).goods if not is_upgraded(g) and good_type(g) in cheap]

    def reward_available(self, ctx: Ctx, seat: int) -> str | None:
        return None if gains(ctx, seat) else "no hero or commission available"

    def reward(self, ctx: Ctx, seat: int) -> None:
        ctx.push(GAIN.kind, seat)


class Gain(Choice):
    """Choose the hero (from the inn or the deck top) or the commission (a town's top) to gain."""

    kind = f"{ID}_gain"
    prompt = i18n.N_("The Candle & Quartz: gain 1 available hero or commission")
    inside_gain = True  # paid for: nothing may take the hero or commission away meanwhile

    def options(self, ctx: Ctx, task: Task, seat: int) -> list[Option]:
        return [(e, describe_effect(ctx, e)) for e in gains(ctx, seat)]

    def choose(self, ctx: Ctx, task: Task, seat: int, option: str) -> None:
        ctx.gain_effects(seat, [option], source=ID)


PAY = Pay()
GAIN = Gain()


building = kit.PayBuilding(
    Component("building", ID, "The Candle & Quartz",
              "Spend 2 coins or 1 basic good with a current value of $1, then gain 1 available hero or "
              "commission.", {"tile": 3}),
    PAY, GAIN,
)

darkroad_components = building.components
darkroad_steps = building.steps
darkroad_activate_building = building.activate
