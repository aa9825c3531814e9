"""Patron of the East: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
The east pays its heroes in both coins and prestige, so its patron pays victory points.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, region_deliveries

ID = "eastern_patron"
DEED = Deed(
    ID, "Patron of the East",
    "you have delivered at least 3 commissions or heroes, in any mix, to Cursecairn and Nightpoem",
    region_deliveries("east"), need=3, reward="vp", amount=3,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
