"""Cave Dragon, a loyal companion (rulebook p. 16, "Companions"): deliver 1 hero to their
outlying town and gain the delivery reward (no travel needed) / gain 1 basic good of a
type not currently available on the market wheel."""

from __future__ import annotations

from darkroad.plugins.companions import kit

ID = "cave_dragon"

companion = kit.LoyalEffects(ID, "Cave Dragon", [
    "Deliver 1 hero to their outlying town and gain the delivery reward.",
    "Gain 1 basic good from the supply of any type that is not currently available on the market wheel.",
], [["deliver_hero"], ["good:not_on_wheel"]])

darkroad_components = companion.components
darkroad_companion_options = companion.companion_options
darkroad_companion_use = companion.companion_use
