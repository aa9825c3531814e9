"""Patron of the North: a deed (rulebook p. 17, "Deeds"; scored in "Final Scoring", p. 13).

The printed face is not in the rulebook; this one is a reconstruction (docs/deeds.md).
The north pays its heroes in coins, so its patron pays prestige: the other side of the final
minimum.
"""

from __future__ import annotations

from darkroad.plugins.deeds.kit import Deed, region_deliveries

ID = "northern_patron"
DEED = Deed(
    ID, "Patron of the North",
    "you have delivered at least 3 commissions or heroes, in any mix, to Northbreak and Scorchborn",
    region_deliveries("north"), need=3, reward="prestige", amount=6,
)


darkroad_components = DEED.components
darkroad_deed_score = DEED.deed_score
