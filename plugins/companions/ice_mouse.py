"""Ice Mouse, a loyal companion (rulebook p. 16, "Companions"): gain 1 available
commission / gain 1 basic good from the supply."""

from __future__ import annotations

from darkroad.plugins.companions import kit

ID = "ice_mouse"

companion = kit.LoyalEffects(ID, "Ice Mouse", [
    "Gain 1 available commission.",
    "Gain 1 basic good from the supply.",
], [["commission"], ["good:any"]])

darkroad_components = companion.components
darkroad_companion_options = companion.companion_options
darkroad_companion_use = companion.companion_use
