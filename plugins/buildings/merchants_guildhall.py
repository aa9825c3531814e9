"""Merchant's Guildhall (rulebook p. 15): spend 2 coins or 1 lantern, then gain 2 basic
goods: 1 of any type and 1 of a type with a current value of $1.

Double-sided tile 2 with Icebreaker Harbor (docs/content.md, "Double-sided building tiles").
"""

from __future__ import annotations

from darkroad.core import Component, i18n
from darkroad.plugins.buildings import kit
from darkroad.plugins.buildings.kit import SpendToGain

ID = "merchants_guildhall"


class Pay(SpendToGain):
    """Spend 2 coins or 1 lantern, then gain 1 good of any type and 1 good valued $1."""

    kind = f"{ID}_pay"
    prompt = i18n.N_("Merchant's Guildhall: spend 2 coins or 1 lantern to gain 2 basic goods")
    building = ID
    costs = {"coins": 2, "lantern": 1}
    cost_text = "2 coins or 1 lantern"
    effects = ("good:any", "good:value1")


PAY = Pay()


building = kit.PayBuilding(
    Component("building", ID, "Merchant's Guildhall",
              "Spend 2 coins or 1 lantern, then gain 2 basic goods from the supply: 1 good of any "
              "type and 1 good of a type with a current value of $1.", {"tile": 2}),
    PAY,
)

darkroad_components = building.components
darkroad_steps = building.steps
darkroad_activate_building = building.activate
