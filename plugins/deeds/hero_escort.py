"""Hero's Escort: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
A sliding deed: every hero beyond the third adds 1 VP, up to 6 VP for six heroes.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, heroes_delivered

ID = "hero_escort"
DEED = Deed(
    ID, "Hero's Escort", "you have delivered at least 3 heroes",
    heroes_delivered, need=3, reward="vp", amount=3, per_extra=1, most=6, unit="hero",
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
