"""Snow Bee, a loyal companion (rulebook p. 16, "Companions"): gain 1 available hero (no
sale needed; its bonus applies) / craft an upgraded good using the die locked in slot #1."""

from __future__ import annotations

from darkroad.plugins.companions import kit

ID = "snow_bee"

companion = kit.LoyalEffects(ID, "Snow Bee", [
    "Gain 1 available hero.",
    "Craft an upgraded good using the die locked in slot #1.",
], [["hero"], ["good:craft+"]])

darkroad_components = companion.components
darkroad_companion_options = companion.companion_options
darkroad_companion_use = companion.companion_use
