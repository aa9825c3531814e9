"""Queen's Eyes Surveyor (rulebook p. 15): spend 2 coins or 1 blazing quartz to gain 3 prestige.

Double-sided tile 1 with the Blazing Quartz Mine (docs/content.md, "Double-sided building tiles"). When both costs are
payable the player chooses which to spend; with neither the activation does nothing.
"""

from __future__ import annotations

from darkroad.core import Component, i18n
from darkroad.plugins.buildings import kit
from darkroad.plugins.buildings.kit import SpendToGain

ID = "queens_eyes_surveyor"


class Pay(SpendToGain):
    """Spend 2 coins or 1 blazing quartz, then gain 3 prestige."""

    kind = f"{ID}_pay"
    prompt = i18n.N_("Queen's Eyes Surveyor: spend 2 coins or 1 blazing quartz to gain 3 prestige")
    building = ID
    costs = {"coins": 2, "quartz": 1}
    cost_text = "2 coins or 1 blazing quartz"
    effects = ("prestige:3",)


PAY = Pay()


building = kit.PayBuilding(
    Component("building", ID, "Queen's Eyes Surveyor",
              "Spend 2 coins or 1 blazing quartz to gain 3 prestige.", {"tile": 1}),
    PAY,
)

darkroad_components = building.components
darkroad_steps = building.steps
darkroad_activate_building = building.activate
