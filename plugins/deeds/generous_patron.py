"""Generous Patron: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
Counts the gifts left on loyal companion cards, the quantity of the second tie-breaker (p. 13).
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, loyal_gifts

ID = "generous_patron"
DEED = Deed(
    ID, "Generous Patron", "your loyal companions carry at least 3 gifts",
    loyal_gifts, need=3, reward="vp", amount=4,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
