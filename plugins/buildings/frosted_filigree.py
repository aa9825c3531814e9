"""The Frosted Filigree (rulebook p. 15): spend 2 coins or 1 good, then gain 1 upgraded good
with a current value of $1.

Double-sided tile 5 with Yedl's Workshop (docs/content.md, "Double-sided building tiles"). Any good held, basic or
upgraded, pays; the player chooses which.
"""

from __future__ import annotations

from darkroad.core import Component, Ctx, i18n
from darkroad.plugins.buildings import kit
from darkroad.plugins.buildings.kit import SpendToGain

ID = "frosted_filigree"


class Pay(SpendToGain):
    """Spend 2 coins or 1 good, then gain 1 upgraded good valued $1."""

    kind = f"{ID}_pay"
    prompt = i18n.N_("The Frosted Filigree: spend 2 coins or 1 good to gain 1 upgraded good valued $1")
    building = ID
    costs = {"coins": 2}
    cost_text = "2 coins or 1 good"
    effects = ("good:value1+",)

    def payable_goods(self, ctx: Ctx, seat: int) -> list[str]:
        return list(ctx.player(seat).goods)


PAY = Pay()


building = kit.PayBuilding(
    Component("building", ID, "The Frosted Filigree",
              "Spend 2 coins or 1 good, then gain 1 upgraded good from the supply with a current value "
              "of $1.", {"tile": 5}),
    PAY,
)

darkroad_components = building.components
darkroad_steps = building.steps
darkroad_activate_building = building.activate
